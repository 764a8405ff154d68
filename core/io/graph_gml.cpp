// GML graphs (graph_files.h): a lexer for the subset of GML that network files use, the reader
// of one graph's nodes and edges, and recognition by content.

#include "core/io/byte_source.h"
#include "core/io/data_error.h"
#include "core/io/graph_files.h"
#include "core/io/graph_text.h"

#include <limits>
#include <unordered_map>

namespace svi {
namespace {

struct Token
{
    enum Type {
        Key,    // a word: [A-Za-z_][A-Za-z0-9_]*
        Number, // anything else starting with a digit, a sign or '.' (checked where it is used)
        String, // between double quotes, without them
        Open,
        Close,
        End,
        Unclosed, // a string without its closing quote
        Other     // a run of other characters
    };
    Type type = End;
    std::string_view text;
    std::int64_t line = 0;
};

bool isWordStart(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool isWordChar(char c)
{
    return isWordStart(c) || (c >= '0' && c <= '9');
}

bool endsRun(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '[' ||
           c == ']' || c == '"' || c == '#';
}

// Tokens of GML text, counting lines from 1. Never throws: an unclosed string is a token.
class Lexer
{
public:
    explicit Lexer(std::string_view text) : m_text(text) {}

    Token next()
    {
        skipSpaceAndComments();
        Token t;
        t.line = m_line;
        if (m_pos >= m_text.size())
            return t;
        const char c = m_text[m_pos];
        const std::size_t start = m_pos;
        if (c == '[' || c == ']') {
            ++m_pos;
            t.type = c == '[' ? Token::Open : Token::Close;
            t.text = m_text.substr(start, 1);
        } else if (c == '"') {
            const std::size_t close = m_text.find('"', start + 1);
            if (close == std::string_view::npos) {
                t.type = Token::Unclosed;
                t.text = m_text.substr(start, 1);
                m_pos = m_text.size();
                return t;
            }
            t.type = Token::String;
            t.text = m_text.substr(start + 1, close - start - 1);
            for (const char x : t.text)
                m_line += x == '\n' ? 1 : 0;
            m_pos = close + 1;
        } else if (isWordStart(c)) {
            while (m_pos < m_text.size() && isWordChar(m_text[m_pos]))
                ++m_pos;
            t.type = Token::Key;
            t.text = m_text.substr(start, m_pos - start);
            if (m_pos < m_text.size() && !endsRun(m_text[m_pos]))
                t.type = Token::Other; // "label2x@": not a key
        } else {
            t.type = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' ? Token::Number
                                                                                : Token::Other;
        }
        if (t.type == Token::Number || t.type == Token::Other) {
            while (m_pos < m_text.size() && !endsRun(m_text[m_pos]))
                ++m_pos;
            t.text = m_text.substr(start, m_pos - start);
        }
        return t;
    }

private:
    void skipSpaceAndComments()
    {
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c == '\n') {
                ++m_line;
                ++m_pos;
            } else if (isBlank(c)) {
                ++m_pos;
            } else if (c == '#') {
                const std::size_t nl = m_text.find('\n', m_pos);
                m_pos = nl == std::string_view::npos ? m_text.size() : nl;
            } else {
                break;
            }
        }
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
    std::int64_t m_line = 1;
};

struct GmlNode
{
    std::int64_t id = 0;
    std::int64_t line = 0; // of the node's key
    bool hasId = false;
    bool hasLabel = false;
    std::string label;
};

struct GmlEdge
{
    std::int64_t source = 0, target = 0;
    std::int64_t sourceLine = 0, targetLine = 0;
    std::int64_t line = 0; // of the edge's key
    bool hasSource = false, hasTarget = false;
};

class GmlReader
{
public:
    GmlReader(const std::string& path, std::string_view text) : m_path(path), m_lex(text) {}

    GraphFile read()
    {
        bool seen = false;
        while (true) {
            const Token key = m_lex.next();
            if (key.type == Token::End)
                break;
            const Token value = valueOf(key);
            if (value.type != Token::Open)
                continue;
            if (key.text != "graph") {
                skipList(key, value);
                continue;
            }
            if (seen)
                failLine(m_path, key.line, "a second graph: one graph per file");
            seen = true;
            readGraph(value);
        }
        if (!seen)
            failFile(m_path, "no 'graph [ … ]' list in it: it is not a GML graph");
        return finish();
    }

private:
    // The key's value, after checking that `key` is a key and has one.
    Token valueOf(const Token& key)
    {
        if (key.type == Token::Close)
            failLine(m_path, key.line, "']' closes no list");
        if (key.type == Token::Unclosed)
            failLine(m_path, key.line, "a string opened here is never closed");
        if (key.type != Token::Key)
            failLine(m_path, key.line, "expected a key, found " + inQuotes(key.text));
        const Token value = m_lex.next();
        if (value.type == Token::Unclosed)
            failLine(m_path, value.line, "a string opened here is never closed");
        if (value.type == Token::End || value.type == Token::Close)
            failLine(m_path, key.line, inQuotes(key.text) + " has no value");
        return value;
    }

    void unclosed(const Token& key, const Token& open)
    {
        failLine(m_path, open.line,
                 "the list '" + std::string(key.text) + " [' opened here is never closed");
    }

    // Skips a list whose '[' was just read, nested lists included (iteratively: a file may
    // nest deeper than the stack allows).
    void skipList(const Token& key, const Token& open)
    {
        std::int64_t depth = 1;
        while (depth > 0) {
            const Token t = m_lex.next();
            if (t.type == Token::End)
                unclosed(key, open);
            if (t.type == Token::Unclosed)
                failLine(m_path, t.line, "a string opened here is never closed");
            depth += t.type == Token::Open ? 1 : t.type == Token::Close ? -1 : 0;
        }
    }

    std::int64_t wholeValue(const Token& key, const Token& value)
    {
        std::int64_t v = 0;
        if (value.type != Token::Number || !graph_text::parseWhole(value.text, v))
            failField(m_path, value.line, std::string(key.text),
                      (value.type == Token::Open ? std::string("a list") : inQuotes(value.text)) +
                          " is not a whole number");
        return v;
    }

    void readGraph(const Token& open)
    {
        const Token graphKey{Token::Key, "graph", open.line};
        while (true) {
            const Token key = m_lex.next();
            if (key.type == Token::End)
                unclosed(graphKey, open);
            if (key.type == Token::Close)
                return;
            const Token value = valueOf(key);
            if (key.text == "node" && value.type == Token::Open)
                readNode(key, value);
            else if (key.text == "edge" && value.type == Token::Open)
                readEdge(key, value);
            else if (key.text == "directed") {
                const std::int64_t d = wholeValue(key, value);
                if (d != 0 && d != 1)
                    failField(m_path, value.line, "directed",
                              inQuotes(value.text) + " is neither 0 nor 1");
                m_directed = d == 1;
            } else if (value.type == Token::Open)
                skipList(key, value);
        }
    }

    void readNode(const Token& nodeKey, const Token& open)
    {
        GmlNode node;
        node.line = nodeKey.line;
        while (true) {
            const Token key = m_lex.next();
            if (key.type == Token::End)
                unclosed(nodeKey, open);
            if (key.type == Token::Close)
                break;
            const Token value = valueOf(key);
            if (key.text == "id") {
                if (node.hasId)
                    failLine(m_path, key.line, "a second id in one node");
                node.id = wholeValue(key, value);
                node.hasId = true;
            } else if (key.text == "label" && value.type != Token::Open && !node.hasLabel) {
                node.label = std::string(value.text);
                node.hasLabel = !node.label.empty();
            } else if (value.type == Token::Open) {
                skipList(key, value);
            }
        }
        if (!node.hasId)
            failLine(m_path, node.line, "a node without an id");
        m_nodes.push_back(std::move(node));
    }

    void readEdge(const Token& edgeKey, const Token& open)
    {
        GmlEdge edge;
        edge.line = edgeKey.line;
        bool valued = false;
        while (true) {
            const Token key = m_lex.next();
            if (key.type == Token::End)
                unclosed(edgeKey, open);
            if (key.type == Token::Close)
                break;
            const Token value = valueOf(key);
            const bool source = key.text == "source";
            if (source || key.text == "target") {
                if (source ? edge.hasSource : edge.hasTarget)
                    failLine(m_path, key.line,
                             "a second " + std::string(key.text) + " in one edge");
                (source ? edge.source : edge.target) = wholeValue(key, value);
                (source ? edge.sourceLine : edge.targetLine) = value.line;
                (source ? edge.hasSource : edge.hasTarget) = true;
            } else if (key.text == "value" || key.text == "weight") {
                valued = true;
            }
            if (value.type == Token::Open)
                skipList(key, value);
        }
        if (!edge.hasSource || !edge.hasTarget)
            failLine(m_path, edge.line,
                     std::string("an edge without a ") + (edge.hasSource ? "target" : "source"));
        m_valued += valued ? 1 : 0;
        m_edges.push_back(edge);
    }

    GraphFile finish()
    {
        if (m_nodes.empty())
            failFile(m_path, "the graph has no nodes");
        if (m_nodes.size() > std::size_t(std::numeric_limits<std::int32_t>::max()))
            failFile(m_path, "more than 2³¹ − 1 nodes");
        GraphFile f;
        f.format = GraphFormat::Gml;
        f.graph.nodes = std::int32_t(m_nodes.size());
        f.graph.directed = m_directed;
        f.graph.source = m_path;
        std::unordered_map<std::int64_t, std::size_t> index;
        index.reserve(m_nodes.size());
        std::size_t labelled = 0;
        for (std::size_t k = 0; k < m_nodes.size(); ++k) {
            const GmlNode& n = m_nodes[k];
            const auto [it, fresh] = index.emplace(n.id, k);
            if (!fresh)
                failField(m_path, n.line, "id",
                          std::to_string(n.id) + " again (first at line " +
                              std::to_string(m_nodes[it->second].line) + ")");
            labelled += n.hasLabel ? 1 : 0;
            f.graph.nodeNames.push_back(n.hasLabel ? n.label : std::to_string(n.id));
        }
        f.namesFrom = labelled == m_nodes.size() ? "labels"
                      : labelled == 0            ? "ids"
                                                 : "labels, else ids";
        f.graph.links.reserve(m_edges.size());
        for (const GmlEdge& e : m_edges) {
            const auto s = index.find(e.source), t = index.find(e.target);
            if (s == index.end())
                failField(m_path, e.sourceLine, "source",
                          "no node has id " + std::to_string(e.source));
            if (t == index.end())
                failField(m_path, e.targetLine, "target",
                          "no node has id " + std::to_string(e.target));
            f.graph.links.push_back({std::int32_t(s->second), std::int32_t(t->second)});
        }
        if (m_valued > 0)
            f.notes.push_back(std::to_string(m_valued) +
                              (m_valued == 1 ? " edge carries" : " edges carry") +
                              " a value (a weight): not modelled, every listed edge is a link");
        return f;
    }

    const std::string& m_path;
    Lexer m_lex;
    std::vector<GmlNode> m_nodes;
    std::vector<GmlEdge> m_edges;
    bool m_directed = false;
    std::int64_t m_valued = 0;
};

} // namespace

GraphFile readGmlFile(const std::string& path)
{
    const std::string bytes = readAllBytes(path);
    std::string_view text = bytes;
    if (text.starts_with(kBom))
        text.remove_prefix(kBom.size());
    if (text.find('\0') != std::string_view::npos)
        failFile(path, "it holds binary data (NUL bytes), not GML text");
    GraphFile f = GmlReader(path, text).read();
    f.formatName = "GML";
    return f;
}

bool looksLikeGml(std::string_view head)
{
    if (head.starts_with(kBom))
        head.remove_prefix(kBom.size());
    Lexer lex(head);
    for (int pairs = 0; pairs <= 64; ++pairs) {
        const Token key = lex.next();
        const Token value = lex.next();
        if (key.type != Token::Key)
            return false;
        if (value.type == Token::Open)
            return key.text == "graph";
        if (value.type != Token::Number && value.type != Token::String)
            return false;
    }
    return false;
}

} // namespace svi
