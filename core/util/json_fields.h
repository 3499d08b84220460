#pragma once
// Strict reading of JSON objects users write (BATCH.json, WORKSPACE.json): every key is read
// through Fields, which checks its type and names what is wrong by its JSON path
// ("batch.json: $.sparsify.threshold must be a number, but got a string"); keys nobody read
// are unknown, and rejectUnknown() lists the known ones.
#include "core/util/errors.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sparsity::core {

inline std::string jsonTypeName(const nlohmann::json &value)
{
    switch (value.type()) {
    case nlohmann::json::value_t::object:
        return "an object";
    case nlohmann::json::value_t::array:
        return "an array";
    case nlohmann::json::value_t::string:
        return "a string";
    case nlohmann::json::value_t::boolean:
        return "a boolean";
    case nlohmann::json::value_t::null:
        return "null";
    default:
        return "a number";
    }
}

// One JSON object, read key by key; every key must be read (or is unknown).
class Fields {
public:
    Fields(const nlohmann::json &object, std::string path, std::string file)
        : m_object(object), m_path(std::move(path)), m_file(std::move(file))
    {
        if (!object.is_object())
            fail(m_path, "must be an object", "got " + jsonTypeName(object));
    }

    [[noreturn]] void fail(const std::string &path, const std::string &constraint, const std::string &actual) const
    {
        throw InputError(m_file + ": " + path + " " + constraint + ", but " + actual);
    }

    std::string at(const std::string &key) const { return m_path + "." + key; }
    bool has(const std::string &key)
    {
        m_known.insert(key);
        return m_object.contains(key);
    }

    const nlohmann::json *get(const std::string &key, bool required)
    {
        if (!has(key)) {
            if (required)
                fail(at(key), "must be given", "it is missing");
            return nullptr;
        }
        return &m_object.at(key);
    }

    std::optional<double> number(const std::string &key, bool required = false)
    {
        const nlohmann::json *v = get(key, required);
        if (!v)
            return std::nullopt;
        if (!v->is_number())
            fail(at(key), "must be a number", "got " + jsonTypeName(*v));
        return v->get<double>();
    }
    std::optional<std::int64_t> integer(const std::string &key)
    {
        const nlohmann::json *v = get(key, false);
        if (!v)
            return std::nullopt;
        if (!v->is_number_integer())
            fail(at(key), "must be an integer", "got " + (v->is_number() ? std::string("a fraction") : jsonTypeName(*v)));
        return v->get<std::int64_t>();
    }
    std::optional<std::string> string(const std::string &key, bool required = false)
    {
        const nlohmann::json *v = get(key, required);
        if (!v)
            return std::nullopt;
        if (!v->is_string())
            fail(at(key), "must be a string", "got " + jsonTypeName(*v));
        return withoutNul(v->get<std::string>(), at(key));
    }
    bool boolean(const std::string &key)
    {
        const nlohmann::json *v = get(key, false);
        if (v && !v->is_boolean())
            fail(at(key), "must be true or false", "got " + jsonTypeName(*v));
        return v && v->get<bool>();
    }
    std::vector<std::string> strings(const std::string &key, bool required = false)
    {
        const nlohmann::json *v = get(key, required);
        if (!v)
            return {};
        if (!v->is_array())
            fail(at(key), "must be an array of strings", "got " + jsonTypeName(*v));
        std::vector<std::string> out;
        for (std::size_t i = 0; i < v->size(); ++i) {
            if (!(*v)[i].is_string())
                fail(at(key) + "[" + std::to_string(i) + "]", "must be a string", "got " + jsonTypeName((*v)[i]));
            out.push_back(withoutNul((*v)[i].get<std::string>(), at(key) + "[" + std::to_string(i) + "]"));
        }
        return out;
    }
    std::optional<Fields> object(const std::string &key)
    {
        const nlohmann::json *v = get(key, false);
        if (!v)
            return std::nullopt;
        return Fields(*v, at(key), m_file);
    }

    // Call last: any key not read is unknown.
    void rejectUnknown() const
    {
        for (const auto &[key, value] : m_object.items())
            if (!m_known.count(key)) {
                std::string known;
                for (const auto &k : m_known)
                    known += (known.empty() ? "" : ", ") + k;
                fail(at(key), "is not a known key", "known keys here are " + known);
            }
    }

private:
    // JSON allows "\u0000" in a string; every C call taking the string as a name would stop there.
    std::string withoutNul(std::string value, const std::string &path) const
    {
        if (const auto nul = value.find('\0'); nul != std::string::npos)
            fail(path, "must not contain a NUL character (\\u0000)", "it has one at byte " + std::to_string(nul));
        return value;
    }

    const nlohmann::json &m_object;
    std::string m_path;
    std::string m_file;
    std::set<std::string> m_known;
};

} // namespace sparsity::core
