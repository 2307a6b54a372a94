// The only C++ in the configuration: toml++ parses the text, and this file
// flattens the document into plain C entries (config_internal.h) that the C
// side validates. No exception leaves this file: every one is caught and
// turned into a status. The Debian toml++ is built with exceptions on (its
// symbols live in toml::v3::ex), so toml::parse throws toml::parse_error.
#include "config/config_internal.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>

#include <toml++/toml.h>

namespace {

bool is_bare(std::string_view k)
{
    if (k.empty())
        return false;
    for (char c : k) {
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-';
        if (!ok)
            return false;
    }
    return true;
}

// Appends one key component, quoted as TOML writes it when it is not bare.
void append_key(std::string &path, std::string_view k)
{
    if (!path.empty())
        path += '.';
    if (is_bare(k)) {
        path += k;
        return;
    }
    path += '"';
    for (unsigned char c : k) {
        if (c == '"' || c == '\\') {
            path += '\\';
            path += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04X", c);
            path += buf;
        } else {
            path += static_cast<char>(c);
        }
    }
    path += '"';
}

char *dup(std::string_view s)
{
    char *p = static_cast<char *>(std::malloc(s.size() + 1));
    if (!p)
        throw std::bad_alloc();
    std::memcpy(p, s.data(), s.size());
    p[s.size()] = '\0';
    return p;
}

// Fills the value part of `e` from `node` (not its key; arrays not descended).
void fill_value(ebb_toml_entry &e, const toml::node &node)
{
    const toml::source_region &src = node.source();
    e.line = static_cast<int32_t>(src.begin.line);
    e.column = static_cast<int32_t>(src.begin.column);
    switch (node.type()) {
    case toml::node_type::table: e.kind = EBB_TOML_TABLE; break;
    case toml::node_type::array:
        e.kind = EBB_TOML_ARRAY;
        e.count = node.as_array()->size();
        break;
    case toml::node_type::string: {
        e.kind = EBB_TOML_STRING;
        const std::string &s = node.as_string()->get();
        e.string = dup(s);
        e.length = s.size();
        break;
    }
    case toml::node_type::integer:
        e.kind = EBB_TOML_INTEGER;
        e.integer = node.as_integer()->get();
        break;
    case toml::node_type::floating_point:
        e.kind = EBB_TOML_FLOAT;
        e.number = node.as_floating_point()->get();
        break;
    case toml::node_type::boolean:
        e.kind = EBB_TOML_BOOLEAN;
        e.boolean = node.as_boolean()->get() ? 1 : 0;
        break;
    case toml::node_type::date: e.kind = EBB_TOML_DATE; break;
    case toml::node_type::time: e.kind = EBB_TOML_TIME; break;
    default: e.kind = EBB_TOML_DATETIME; break;
    }
}

ebb_toml_entry &push(ebb_toml_doc &doc)
{
    if (doc.count == doc.capacity) {
        size_t cap = doc.capacity ? doc.capacity * 2 : 32;
        void *p = std::realloc(doc.entries, cap * sizeof *doc.entries);
        if (!p)
            throw std::bad_alloc();
        doc.entries = static_cast<ebb_toml_entry *>(p);
        doc.capacity = cap;
    }
    ebb_toml_entry &e = doc.entries[doc.count++];
    std::memset(&e, 0, sizeof e);
    return e;
}

void walk(ebb_toml_doc &doc, const toml::table &table, const std::string &prefix)
{
    for (auto &&[key, node] : table) {
        std::string path = prefix;
        append_key(path, key.str());
        ebb_toml_entry &e = push(doc);
        e.key = dup(path);
        fill_value(e, node);
        // The key's own position, where toml++ knows it (values: same line).
        if (key.source().begin.line != 0) {
            e.line = static_cast<int32_t>(key.source().begin.line);
            e.column = static_cast<int32_t>(key.source().begin.column);
        }
        if (const toml::array *arr = node.as_array()) {
            if (arr->size() != 0) {
                auto *elems = static_cast<ebb_toml_entry *>(
                    std::calloc(arr->size(), sizeof(ebb_toml_entry)));
                if (!elems)
                    throw std::bad_alloc();
                // Re-take the reference: push() above may have moved entries,
                // but nothing is pushed between here and the assignment.
                doc.entries[doc.count - 1].elements = elems;
                for (size_t i = 0; i < arr->size(); i++)
                    fill_value(elems[i], *arr->get(i));
            }
        } else if (const toml::table *sub = node.as_table()) {
            walk(doc, *sub, path);
        }
    }
}

void set_error(ebb_toml_doc &doc, const char *text)
{
    std::snprintf(doc.error, sizeof doc.error, "%s", text);
}

} // namespace

// Here, with the parser that builds the document: the C side only calls
// down into this file, never the other way.
extern "C" void ebb_toml_doc_free(ebb_toml_doc *doc)
{
    for (size_t i = 0; i < doc->count; i++) {
        ebb_toml_entry *e = &doc->entries[i];
        std::free(e->key);
        std::free(e->string);
        if (e->elements)
            for (size_t j = 0; j < e->count; j++)
                std::free(e->elements[j].string);
        std::free(e->elements);
    }
    std::free(doc->entries);
    std::memset(doc, 0, sizeof *doc);
}

extern "C" int ebb_toml_parse(const char *text, size_t len, ebb_toml_doc *doc)
{
    std::memset(doc, 0, sizeof *doc);
    int rc = EBB_TOML_OK;
    try {
        toml::table root = toml::parse(std::string_view(text, len));
        walk(*doc, root, std::string());
        return EBB_TOML_OK;
    } catch (const toml::parse_error &err) {
        doc->error_line = static_cast<int32_t>(err.source().begin.line);
        doc->error_column = static_cast<int32_t>(err.source().begin.column);
        set_error(*doc, std::string(err.description()).c_str());
        rc = EBB_TOML_SYNTAX;
    } catch (const std::bad_alloc &) {
        rc = EBB_TOML_NO_MEMORY;
    } catch (const std::exception &err) {
        set_error(*doc, err.what());
        rc = EBB_TOML_INTERNAL;
    } catch (...) {
        set_error(*doc, "unknown C++ exception");
        rc = EBB_TOML_INTERNAL;
    }
    // Failure: drop whatever was built, keep the error fields.
    int32_t line = doc->error_line, column = doc->error_column;
    char error[sizeof doc->error];
    std::memcpy(error, doc->error, sizeof error);
    ebb_toml_doc_free(doc);
    doc->error_line = line;
    doc->error_column = column;
    std::memcpy(doc->error, error, sizeof error);
    return rc;
}
