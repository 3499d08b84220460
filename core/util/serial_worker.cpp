#include "core/util/serial_worker.h"

namespace sparsity::core {

SerialWorker::SerialWorker() : m_thread([this] { loop(); }) {}

SerialWorker::~SerialWorker()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_tasks.clear(); // their futures report broken_promise; nobody waits on them any more
    }
    m_wake.notify_one();
    m_thread.join();
}

std::future<void> SerialWorker::submit(std::function<void()> task)
{
    std::packaged_task<void()> packaged(std::move(task));
    auto future = packaged.get_future();
    {
        std::lock_guard lock(m_mutex);
        m_tasks.push_back(std::move(packaged));
    }
    m_wake.notify_one();
    return future;
}

void SerialWorker::loop()
{
    for (;;) {
        std::packaged_task<void()> task;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_tasks.empty(); });
            if (m_stopping)
                return;
            task = std::move(m_tasks.front());
            m_tasks.pop_front();
        }
        task();
    }
}

} // namespace sparsity::core
