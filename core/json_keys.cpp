#include "core/json_keys.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/stream_parser.hpp>

#include <cstdint>
#include <set>
#include <vector>

namespace tilescope {

namespace {

namespace json = boost::json;

// A basic_parser handler that builds nothing: it keeps, per open object, the keys seen so far
// and, per open array, the index of the element being read, and stops at the first repeated key.
struct KeyChecker {
    static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);

    struct Frame {
        bool is_object = false;
        std::set<std::string> keys;  // object: the keys so far
        std::string key;             // object: the key of the value being read
        std::int64_t index = -1;     // array: the element being read
    };
    std::vector<Frame> frames;
    std::string key_part;
    std::string duplicate;  // the path, once found

    std::string path() const {
        std::string p = "$";
        for (const Frame& f : frames) p += f.is_object ? "." + f.key : "[" + std::to_string(f.index) + "]";
        return p;
    }
    // A value starts: an array counts it as its next element.
    void value() {
        if (!frames.empty() && !frames.back().is_object) ++frames.back().index;
    }
    bool on_document_begin(json::error_code&) { return true; }
    bool on_document_end(json::error_code&) { return true; }
    bool on_array_begin(json::error_code&) {
        value();
        frames.push_back(Frame{});
        return true;
    }
    bool on_array_end(std::size_t, json::error_code&) {
        frames.pop_back();
        return true;
    }
    bool on_object_begin(json::error_code&) {
        value();
        Frame f;
        f.is_object = true;
        frames.push_back(std::move(f));
        return true;
    }
    bool on_object_end(std::size_t, json::error_code&) {
        frames.pop_back();
        return true;
    }
    bool on_string_part(json::string_view, std::size_t, json::error_code&) { return true; }
    bool on_string(json::string_view, std::size_t, json::error_code&) {
        value();
        return true;
    }
    bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
        key_part.append(s.data(), s.size());
        return true;
    }
    bool on_key(json::string_view s, std::size_t, json::error_code& ec) {
        key_part.append(s.data(), s.size());
        Frame& f = frames.back();
        f.key = std::move(key_part);
        key_part.clear();
        if (!f.keys.insert(f.key).second) {
            duplicate = path();
            ec = json::error::extra_data;  // any error: it stops the parse; `duplicate` says why
            return false;
        }
        return true;
    }
    bool on_number_part(json::string_view, json::error_code&) { return true; }
    bool on_int64(std::int64_t, json::string_view, json::error_code&) {
        value();
        return true;
    }
    bool on_uint64(std::uint64_t, json::string_view, json::error_code&) {
        value();
        return true;
    }
    bool on_double(double, json::string_view, json::error_code&) {
        value();
        return true;
    }
    bool on_bool(bool, json::error_code&) {
        value();
        return true;
    }
    bool on_null(json::error_code&) {
        value();
        return true;
    }
    bool on_comment_part(json::string_view, json::error_code&) { return true; }
    bool on_comment(json::string_view, json::error_code&) { return true; }
};

}  // namespace

std::string json_syntax_error(std::string_view text) {
    json::stream_parser p;
    json::error_code ec;
    std::size_t at = p.write_some(text.data(), text.size(), ec);
    std::string why;
    if (!ec && p.done()) {  // a whole value: only white space may follow
        while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r')) ++at;
        if (at == text.size()) return {};
        why = "more after the JSON value";
    } else if (!ec) {
        p.finish(ec);  // a number at the very end completes only here
        if (!ec) return {};
        at = text.size();
    }
    if (why.empty()) why = ec.message();
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < at && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "not valid JSON at line " + std::to_string(line) + ", column " + std::to_string(column) + " (" + why + ")";
}

std::string json_duplicate_key(std::string_view text) {
    json::basic_parser<KeyChecker> p{json::parse_options{}};
    json::error_code ec;
    p.write_some(false, text.data(), text.size(), ec);
    return p.handler().duplicate;
}

}  // namespace tilescope
