#pragma once
// SerialWorker: one background thread that runs submitted tasks one at a time, in the order
// they were submitted. The streaming pipelines give it every HDF5 call (the OpenMPI build of
// HDF5 is not thread-safe, so all calls of a phase must come from one thread) and overlap them with
// computing on the calling thread. Because tasks run in order, a task that reuses a buffer
// runs after every earlier task that used it.
//
// submit() returns a future that rethrows the task's exception. Destroying the worker drops
// the tasks that have not started and waits for the running one, so buffers the tasks use
// may be freed right after it (declare them before the worker).
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

namespace sparsity::core {

class SerialWorker {
public:
    SerialWorker();
    ~SerialWorker();
    SerialWorker(const SerialWorker &) = delete;
    SerialWorker &operator=(const SerialWorker &) = delete;

    std::future<void> submit(std::function<void()> task);

private:
    void loop();

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::packaged_task<void()>> m_tasks;
    bool m_stopping = false;
    std::thread m_thread;
};

} // namespace sparsity::core
