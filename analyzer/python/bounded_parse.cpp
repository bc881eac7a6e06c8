// The time-bounded parse. tree-sitter's error recovery grows faster than
// linearly on garbage: 100 KB of random punctuation took seconds and 1 MB
// about a minute. So the whole file gets one attempt within a time limit;
// if that runs out, the file is cut into pieces at top-level statements,
// each piece is tried alone within a smaller limit, and the final tree is
// parsed over the pieces that passed (tree-sitter's included ranges keep
// every node at its true byte and line). The pieces left out are reported
// as unparsed line ranges.
#include "analyzer/python/module_impl.h"

#include <algorithm>
#include <chrono>

namespace kaudit::analyzer::python {
namespace {

struct Piece {
  uint32_t start = 0, end = 0;  // bytes
  uint32_t start_row = 0;       // pieces begin at the start of a line
};

bool continues_compound(std::string_view line) {
  for (std::string_view kw : {"else", "elif", "except", "finally", "case"}) {
    if (!line.starts_with(kw)) continue;
    if (line.size() == kw.size()) return true;
    char c = line[kw.size()];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return true;
  }
  return false;
}

// Cuts the text at lines that begin a top-level statement (column 0,
// outside brackets, strings and continuations, not an else/except/...,
// not after a decorator), into pieces of about `target` bytes; a piece that
// grows past four times that is cut at the next line whatever the state, so
// that one unclosed bracket cannot make the whole file one piece. Linear.
std::vector<Piece> top_level_pieces(std::string_view s, size_t target) {
  std::vector<Piece> pieces;
  const size_t n = s.size();
  Piece cur;
  uint32_t row = 0;
  int depth = 0;
  char quote = 0;
  bool triple = false, after_decorator = false;
  size_t i = 0;
  auto cut = [&](size_t at) {
    cur.end = static_cast<uint32_t>(at);
    pieces.push_back(cur);
    cur = Piece{static_cast<uint32_t>(at), 0, row};
  };
  while (i < n) {
    char c = s[i];
    if (quote) {
      if (c == '\\' && i + 1 < n) {
        if (s[i + 1] == '\n') ++row;
        i += 2;
        continue;
      }
      if (c == quote) {
        if (!triple) {
          quote = 0;
          ++i;
          continue;
        }
        if (i + 2 < n && s[i + 1] == quote && s[i + 2] == quote) {
          quote = 0;
          i += 3;
          continue;
        }
      }
      if (c != '\n') {
        ++i;
        continue;
      }
      if (!triple) quote = 0;  // an unterminated one-line string ends with its line
    }
    switch (c) {
      case '#':
        while (i < n && s[i] != '\n') ++i;
        continue;
      case '"':
      case '\'':
        quote = c;
        triple = i + 2 < n && s[i + 1] == c && s[i + 2] == c;
        i += triple ? 3 : 1;
        continue;
      case '(':
      case '[':
      case '{': ++depth; break;
      case ')':
      case ']':
      case '}': depth = std::max(0, depth - 1); break;
      case '\\':
        if (i + 1 < n && s[i + 1] == '\n') {
          ++row;
          i += 2;
          continue;
        }
        break;
      case '\n': {
        ++row;
        size_t ls = i + 1;
        if (ls >= n) break;
        size_t size = ls - cur.start;
        if (depth == 0 && !quote) {
          char d = s[ls];
          if (d != ' ' && d != '\t' && d != '\r' && d != '\n' && d != '#') {
            std::string_view line = s.substr(ls, std::min<size_t>(16, n - ls));
            if (size >= target && !after_decorator && !continues_compound(line)) cut(ls);
            after_decorator = d == '@';
          }
        } else if (size >= 4 * target) {
          depth = 0;
          quote = 0;
          cut(ls);
        }
        break;
      }
      default: break;
    }
    ++i;
  }
  cur.end = static_cast<uint32_t>(n);
  if (cur.end > cur.start || pieces.empty()) pieces.push_back(cur);
  return pieces;
}

uint32_t row_of_end(std::string_view s, const Piece& p) {
  uint32_t rows = p.start_row;
  for (uint32_t i = p.start; i < p.end && i < s.size(); ++i) rows += s[i] == '\n';
  return rows;
}

TSRange range_of(std::string_view s, const Piece& p) {
  TSRange r;
  r.start_byte = p.start;
  r.end_byte = p.end;
  r.start_point = {p.start_row, 0};
  // The end point: the row and column of the byte after the piece.
  uint32_t row = p.start_row, col = 0;
  for (uint32_t i = p.start; i < p.end && i < s.size(); ++i) {
    if (s[i] == '\n') {
      ++row;
      col = 0;
    } else {
      ++col;
    }
  }
  r.end_point = {row, col};
  return r;
}

uint64_t micros(double seconds) { return static_cast<uint64_t>(std::max(0.001, seconds) * 1e6); }

}  // namespace

void Module::Impl::parse_bounded(const ParseLimits& limits) {
  using clock = std::chrono::steady_clock;
  const double mb = static_cast<double>(src.size()) / (1024.0 * 1024.0);
  const uint32_t len = static_cast<uint32_t>(src.size());

  const double whole = limits.whole_file_seconds + limits.whole_file_seconds_per_mb * mb;
  ts_parser_set_timeout_micros(parser, micros(whole));
  tree = ts_parser_parse_string(parser, nullptr, src.data(), len);
  if (tree) return;

  // Out of time: try the top-level pieces one by one.
  ts_parser_reset(parser);
  std::vector<Piece> pieces = top_level_pieces(src, 64 * 1024);
  const auto start = clock::now();
  const double budget = limits.pieces_seconds + limits.pieces_seconds_per_mb * mb;
  std::vector<char> good(pieces.size(), 0);
  int failed_in_a_row = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    double left = budget - std::chrono::duration<double>(clock::now() - start).count();
    if (left <= 0 || failed_in_a_row >= limits.give_up_after_failed_pieces) break;
    TSRange r = range_of(src, pieces[i]);
    ts_parser_set_included_ranges(parser, &r, 1);
    ts_parser_set_timeout_micros(parser, micros(std::min(left, limits.piece_seconds)));
    if (TSTree* t = ts_parser_parse_string(parser, nullptr, src.data(), len)) {
      good[i] = 1;
      failed_in_a_row = 0;
      ts_tree_delete(t);
    } else {
      ++failed_in_a_row;
      ts_parser_reset(parser);
    }
  }

  // The final tree, over the pieces that parsed (adjacent ones merged).
  std::vector<TSRange> ranges;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (!good[i]) {
      int first = static_cast<int>(pieces[i].start_row) + 1;
      int last = static_cast<int>(row_of_end(src, pieces[i])) + 1;
      if (pieces[i].end > pieces[i].start && src[pieces[i].end - 1] == '\n') --last;
      last = std::max(first, last);
      if (!unparsed.empty() && unparsed.back().second + 1 >= first) unparsed.back().second = last;
      else unparsed.emplace_back(first, last);
      continue;
    }
    TSRange r = range_of(src, pieces[i]);
    if (!ranges.empty() && ranges.back().end_byte == r.start_byte) {
      ranges.back().end_byte = r.end_byte;
      ranges.back().end_point = r.end_point;
    } else {
      ranges.push_back(r);
    }
  }
  if (!ranges.empty()) {
    ts_parser_set_included_ranges(parser, ranges.data(), static_cast<uint32_t>(ranges.size()));
    // The kept pieces parsed alone in time; together they take about their sum.
    ts_parser_set_timeout_micros(parser, micros(3 * whole + budget));
    tree = ts_parser_parse_string(parser, nullptr, src.data(), len);
  }
  if (!tree) {
    // Nothing could be parsed in time: an empty tree, the whole file unparsed.
    ts_parser_reset(parser);
    ts_parser_set_included_ranges(parser, nullptr, 0);
    ts_parser_set_timeout_micros(parser, 0);
    tree = ts_parser_parse_string(parser, nullptr, "", 0);
    unparsed.assign(1, {1, static_cast<int>(std::count(src.begin(), src.end(), '\n')) + 1});
  }
}

}  // namespace kaudit::analyzer::python
