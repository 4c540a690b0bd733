#include "xml_check.h"

#include <cctype>
#include <vector>

namespace stax::testing {

namespace {

class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}

  std::string run() {
    if (s_.compare(0, 5, "<?xml") == 0) {
      std::size_t end = s_.find("?>");
      if (end == std::string::npos) return fail("unterminated prolog");
      i_ = end + 2;
    }
    int roots = 0;
    while (i_ < s_.size()) {
      if (s_[i_] == '<') {
        std::string e = tag(roots);
        if (!e.empty()) return e;
      } else {
        std::string e = text();
        if (!e.empty()) return e;
      }
    }
    if (!open_.empty()) return fail("element <" + open_.back() + "> not closed");
    if (roots != 1) return fail(std::to_string(roots) + " root elements");
    return "";
  }

 private:
  std::string fail(const std::string& what) const { return what + " at byte " + std::to_string(i_); }

  std::string text() {
    for (; i_ < s_.size() && s_[i_] != '<'; ++i_) {
      if (s_[i_] == '&') {
        std::string e = entity();
        if (!e.empty()) return e;
      } else if (open_.empty() && !std::isspace(static_cast<unsigned char>(s_[i_]))) {
        return fail("text outside the root element");
      }
    }
    return "";
  }

  std::string entity() {
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
      if (s_.compare(i_, std::string(e).size(), e) == 0) {
        i_ += std::string(e).size() - 1;
        return "";
      }
    return fail("unknown entity");
  }

  std::string name() {
    std::size_t start = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' || s_[i_] == ':' || s_[i_] == '_'))
      ++i_;
    return s_.substr(start, i_ - start);
  }

  void spaces() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }

  std::string attributes() {
    std::vector<std::string> seen;
    for (;;) {
      spaces();
      if (i_ >= s_.size()) return fail("unterminated tag");
      if (s_[i_] == '>' || s_[i_] == '/') return "";
      std::string a = name();
      if (a.empty()) return fail("bad attribute name");
      for (const std::string& b : seen)
        if (a == b) return fail("attribute " + a + " given twice");
      seen.push_back(a);
      if (i_ >= s_.size() || s_[i_] != '=') return fail("attribute " + a + " without '='");
      if (++i_ >= s_.size() || s_[i_] != '"') return fail("attribute " + a + " not in double quotes");
      for (++i_; i_ < s_.size() && s_[i_] != '"'; ++i_) {
        if (s_[i_] == '<') return fail("'<' in an attribute value");
        if (s_[i_] == '&') {
          std::string e = entity();
          if (!e.empty()) return e;
        }
      }
      if (i_ >= s_.size()) return fail("unterminated attribute value");
      ++i_;
    }
  }

  std::string tag(int& roots) {
    if (s_.compare(i_, 4, "<!--") == 0) {
      std::size_t end = s_.find("-->", i_);
      if (end == std::string::npos) return fail("unterminated comment");
      i_ = end + 3;
      return "";
    }
    ++i_;
    bool closing = i_ < s_.size() && s_[i_] == '/';
    if (closing) ++i_;
    std::string n = name();
    if (n.empty()) return fail("bad element name");
    if (closing) {
      spaces();
      if (i_ >= s_.size() || s_[i_] != '>') return fail("bad closing tag");
      ++i_;
      if (open_.empty() || open_.back() != n) return fail("</" + n + "> closes " + (open_.empty() ? "nothing" : "<" + open_.back() + ">"));
      open_.pop_back();
      return "";
    }
    if (open_.empty()) ++roots;
    std::string e = attributes();
    if (!e.empty()) return e;
    if (s_[i_] == '/') {
      if (++i_ >= s_.size() || s_[i_] != '>') return fail("bad empty-element tag");
      ++i_;
      return "";
    }
    ++i_;
    open_.push_back(n);
    return "";
  }

  const std::string& s_;
  std::size_t i_ = 0;
  std::vector<std::string> open_;
};

}  // namespace

std::string xml_problem(const std::string& xml) { return Reader(xml).run(); }

}  // namespace stax::testing
