#include "mutate.h"

#include <functional>

#include <nlohmann/json.hpp>

namespace stax::robustness {

namespace {

using Json = nlohmann::ordered_json;
using Ptr = Json::json_pointer;

// Every value of the document, by JSON pointer (the root excluded).
void collect(const Json& j, const Ptr& at, std::vector<Ptr>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      Ptr p = at / it.key();
      out.push_back(p);
      collect(it.value(), p, out);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      Ptr p = at / i;
      out.push_back(p);
      collect(j[i], p, out);
    }
  }
}

// Replace the JSON string "<sentinel>" in the dumped text by raw bytes.
std::string splice(const Json& j, const std::string& sentinel, const std::string& raw) {
  std::string text = j.dump(1);
  std::string quoted = "\"" + sentinel + "\"";
  std::size_t pos = text.find(quoted);
  if (pos == std::string::npos) return text;
  return text.substr(0, pos) + raw + text.substr(pos + quoted.size());
}

const char* kSentinel = "@@STAX_MUTATION@@";

const std::vector<std::string>& extreme_numbers() {
  static const std::vector<std::string> v = {
      "-1", "0", "1", "-9223372036854775808", "9223372036854775807", "18446744073709551615",
      "18446744073709551616", "1e308", "-1e308", "1e999", "-1e999", "4.9e-324", "2147483648", "-2147483649",
      "9007199254740993", "0.5", "-0.0", "1e-7", "100000000000000000000000000000", "3.0", "-7",
      "65536", "4294967296"};
  return v;
}

const std::vector<std::string>& other_values() {
  static const std::vector<std::string> v = {
      "null", "true", "false", "0", "-1", "1.5", "\"x\"", "\"\"", "[]", "{}", "[1, 2]", "{\"a\": 1}",
      "\"inf\"", "\"nan\"", "\"-inf\"", "[[1]]", "[null]", "\"float32\"", "\"add\"", "[\"x\"]", "[-1]", "[0]",
      "{\"op\": \"neg\"}", "{\"op\": \"neg\", \"args\": []}", "{\"name\": \"q\", \"op\": \"neg\", \"args\": [1]}"};
  return v;
}

const std::vector<std::string>& huge_shapes() {
  static const std::vector<std::string> v = {
      "[4294967296, 4294967296]", "[3037000500, 3037000500]", "[9223372036854775807, 2]",
      "[2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2]",
      "[65536, 65536, 65536, 65536]", "[100000, 100000]", "[9223372036854775807]", "[-9223372036854775808]",
      "[1, 0]", "[0]", "[-1, -1]", "[1e3]", "[2.0]", "[\"3\"]", "[true]", "[null]", "[\"nan\"]"};
  return v;
}

const std::vector<std::string>& invalid_utf8() {
  static const std::vector<std::string> v = {"\xff", "\xc3\x28", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf",
                                             "\x80", "\xe2\x82", "\\ud800", "\\udc00x", "\\u0000", "\x01",
                                             "\xf8\x88\x80\x80\x80"};
  return v;
}

const std::vector<std::string>& op_names() {
  static const std::vector<std::string> v = {
      "neg", "add", "sum", "reshape", "cat", "where", "matmul", "layer_norm", "linear", "full", "arange",
      "select", "slice", "pad", "to", "clamp", "div", "argmax", "cumsum", "softmax", "expand", "squeeze",
      "conv2d", "Add", "", "add ", "inf"};
  return v;
}

}  // namespace

Mutator::Mutator(uint64_t seed) : s_(seed * 0x9E3779B97F4A7C15ull + 1) {}

uint64_t Mutator::next() {
  uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t Mutator::range(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
}

int Mutator::kinds() { return 16; }

Mutation Mutator::mutate(const std::string& doc) { return mutate_kind(static_cast<int>(range(0, kinds() - 1)), doc); }

Mutation Mutator::mutate_kind(int kind, const std::string& doc) {
  auto pick = [&](const auto& v) -> const auto& { return v[static_cast<std::size_t>(range(0, static_cast<int64_t>(v.size()) - 1))]; };
  // Text-level mutations first: they need no parse.
  if (kind == 0) {
    auto n = static_cast<std::size_t>(range(0, static_cast<int64_t>(doc.size())));
    return {"truncated at byte " + std::to_string(n), doc.substr(0, n)};
  }
  if (kind == 1) {
    std::string t = doc;
    int64_t k = range(1, 4);
    std::string what = "random bytes at";
    for (int64_t i = 0; i < k && !t.empty(); ++i) {
      auto pos = static_cast<std::size_t>(range(0, static_cast<int64_t>(t.size()) - 1));
      auto byte = static_cast<char>(range(0, 255));
      if (range(0, 1) == 0) t[pos] = byte;
      else t.insert(t.begin() + static_cast<std::ptrdiff_t>(pos), byte);
      what += " " + std::to_string(pos);
    }
    return {what, t};
  }
  Json j = Json::parse(doc);
  std::vector<Ptr> paths;
  collect(j, Ptr(), paths);
  if (paths.empty()) return {"unchanged", doc};
  Ptr at = pick(paths);
  std::string where = at.to_string();
  switch (kind) {
    case 2: {  // delete a key or an array element
      Ptr parent = at.parent_pointer();
      Json& p = j[parent];
      if (p.is_object()) p.erase(at.back());
      else p.erase(static_cast<std::size_t>(std::stoul(at.back())));
      return {"deleted " + where, j.dump(1)};
    }
    case 3: {  // duplicate a key of an object
      std::vector<Ptr> objs;
      for (const Ptr& p : paths)
        if (j[p].is_object() && !j[p].empty()) objs.push_back(p);
      if (j.is_object() && !j.empty()) objs.push_back(Ptr());
      Ptr o = pick(objs);
      Json& obj = j[o];
      auto it = obj.begin();
      std::advance(it, range(0, static_cast<int64_t>(obj.size()) - 1));
      std::string key = it.key();
      Json dup = range(0, 1) ? it.value() : Json(1);
      obj[kSentinel] = dup;
      std::string text = j.dump(1);
      std::string quoted = std::string("\"") + kSentinel + "\"";
      std::size_t pos = text.find(quoted);
      text = text.substr(0, pos) + Json(key).dump() + text.substr(pos + quoted.size());
      return {"duplicated key '" + key + "' in " + o.to_string(), text};
    }
    case 4: {  // a value of another JSON type
      j[at] = kSentinel;
      std::string v = pick(other_values());
      return {"replaced " + where + " by " + v, splice(j, kSentinel, v)};
    }
    case 5: {  // an extreme number in place of a number (or anything)
      std::vector<Ptr> nums;
      for (const Ptr& p : paths)
        if (j[p].is_number()) nums.push_back(p);
      Ptr q = nums.empty() ? at : pick(nums);
      j[q] = kSentinel;
      std::string v = pick(extreme_numbers());
      return {"number " + q.to_string() + " = " + v, splice(j, kSentinel, v)};
    }
    case 6: {  // deep nesting around a value
      int64_t depth = pick(std::vector<int64_t>{100, 1000, 20000});
      Json inner = j[at];
      j[at] = kSentinel;
      std::string raw = std::string(static_cast<std::size_t>(depth), '[') + inner.dump() + std::string(static_cast<std::size_t>(depth), ']');
      return {"nested " + where + " in " + std::to_string(depth) + " arrays", splice(j, kSentinel, raw)};
    }
    case 7: {  // a very long string (value or key)
      std::size_t n = static_cast<std::size_t>(pick(std::vector<int64_t>{300, 5000, 40000}));
      std::string s = range(0, 1) ? std::string(n, 'a') : std::string();
      if (s.empty())
        for (std::size_t i = 0; i < n / 2; ++i) s += "\xc3\xa9";
      j[at] = kSentinel;
      return {"long string (" + std::to_string(n) + ") at " + where, splice(j, kSentinel, "\"" + s + "\"")};
    }
    case 8: {  // invalid UTF-8 (or bad escapes) inside a string
      std::vector<Ptr> strs;
      for (const Ptr& p : paths)
        if (j[p].is_string()) strs.push_back(p);
      Ptr q = strs.empty() ? at : pick(strs);
      std::string s = j[q].is_string() ? j[q].get<std::string>() : "x";
      std::string bad = pick(invalid_utf8());
      auto pos = static_cast<std::size_t>(range(0, static_cast<int64_t>(s.size())));
      j[q] = kSentinel;
      std::string raw = "\"" + s.substr(0, pos) + bad + s.substr(pos) + "\"";
      return {"invalid UTF-8 in " + q.to_string(), splice(j, kSentinel, raw)};
    }
    case 9: {  // a huge or broken shape
      std::vector<Ptr> shapes;
      for (const Ptr& p : paths)
        if (!p.empty() && p.back() == "shape") shapes.push_back(p);
      Ptr q = shapes.empty() ? at : pick(shapes);
      j[q] = kSentinel;
      std::string v = pick(huge_shapes());
      return {"shape " + q.to_string() + " = " + v, splice(j, kSentinel, v)};
    }
    case 10: {  // "nan" or a float where an int belongs
      std::vector<Ptr> ints;
      for (const Ptr& p : paths)
        if (j[p].is_number_integer()) ints.push_back(p);
      Ptr q = ints.empty() ? at : pick(ints);
      j[q] = kSentinel;
      std::string v = pick(std::vector<std::string>{"\"nan\"", "\"inf\"", "NaN", "nan", "1e999", "1.5", "2.0", "-0.0", "Infinity"});
      return {"int " + q.to_string() + " = " + v, splice(j, kSentinel, v)};
    }
    case 11: {  // a name that refers to nothing, or a duplicate name
      std::vector<Ptr> strs;
      for (const Ptr& p : paths)
        if (j[p].is_string()) strs.push_back(p);
      if (strs.empty()) return {"unchanged", doc};
      Ptr q = pick(strs);
      std::vector<std::string> names = {"no_such_value", "x", "inf", "nan", "", " ", "a b", "x\u00e9", "nodes", "-"};
      for (const Ptr& p : strs) names.push_back(j[p].get<std::string>());
      std::string v = pick(names);
      j[q] = v;
      return {"string " + q.to_string() + " = '" + v + "'", j.dump(1)};
    }
    case 12: {  // another op
      std::vector<Ptr> ops;
      for (const Ptr& p : paths)
        if (!p.empty() && p.back() == "op") ops.push_back(p);
      if (ops.empty()) return {"unchanged", doc};
      Ptr q = pick(ops);
      std::string v = pick(op_names());
      j[q] = v;
      return {"op " + q.to_string() + " = '" + v + "'", j.dump(1)};
    }
    case 13: {  // swap two elements of an array (use before definition, reordered args, ...)
      std::vector<Ptr> arrs;
      for (const Ptr& p : paths)
        if (j[p].is_array() && j[p].size() >= 2) arrs.push_back(p);
      if (arrs.empty()) return {"unchanged", doc};
      Ptr q = pick(arrs);
      Json& a = j[q];
      auto x = static_cast<std::size_t>(range(0, static_cast<int64_t>(a.size()) - 1));
      auto y = static_cast<std::size_t>(range(0, static_cast<int64_t>(a.size()) - 1));
      std::swap(a[x], a[y]);
      return {"swapped " + q.to_string() + " [" + std::to_string(x) + "] and [" + std::to_string(y) + "]", j.dump(1)};
    }
    case 14: {  // an unknown key, or a value copied from elsewhere in the document
      if (range(0, 1) == 0) {
        std::vector<Ptr> objs;
        for (const Ptr& p : paths)
          if (j[p].is_object()) objs.push_back(p);
        Ptr o = objs.empty() ? Ptr() : pick(objs);
        std::string key = pick(std::vector<std::string>{"keepdims", "extra", "", "name", "op", "args", "dim"});
        j[o][key] = 1;
        return {"key '" + key + "' = 1 in " + o.to_string(), j.dump(1)};
      }
      Ptr from = pick(paths);
      Json v = j[from];
      j[at] = v;
      return {"copied " + from.to_string() + " to " + where, j.dump(1)};
    }
    default: {  // deep chain of inline nodes in place of an argument
      int64_t depth = pick(std::vector<int64_t>{50, 3000, 20000});
      std::string open, close;
      for (int64_t i = 0; i < depth; ++i) {
        open += "{\"op\":\"neg\",\"args\":[";
        close += "]}";
      }
      Json inner = j[at];
      j[at] = kSentinel;
      return {"inline chain of " + std::to_string(depth) + " around " + where,
              splice(j, kSentinel, open + inner.dump() + close)};
    }
  }
}

std::vector<Mutation> hostile_documents() {
  std::vector<Mutation> v;
  auto graph = [](const std::string& inputs, const std::string& constants, const std::string& nodes,
                  const std::string& outputs) {
    return "{\"format\":\"stax-graph\",\"version\":1,\"name\":\"h\",\"inputs\":" + inputs + ",\"constants\":" +
           constants + ",\"nodes\":" + nodes + ",\"outputs\":" + outputs + "}";
  };
  v.push_back({"empty text", ""});
  v.push_back({"whitespace", "  \n\t "});
  v.push_back({"a number", "42"});
  v.push_back({"null", "null"});
  v.push_back({"an array", "[]"});
  v.push_back({"empty object", "{}"});
  v.push_back({"NUL bytes", std::string("{\"format\":\0\"stax-graph\"}", 25)});
  v.push_back({"BOM then graph", "\xef\xbb\xbf" + graph("[]", "[{\"name\":\"c\",\"dtype\":\"bool\",\"shape\":[],\"data\":[true]}]", "[]", "[\"c\"]")});
  v.push_back({"100000 nested arrays", std::string(100000, '[') + std::string(100000, ']')});
  v.push_back({"100000 nested objects", [] {
                 std::string s;
                 for (int i = 0; i < 100000; ++i) s += "{\"a\":";
                 s += "1";
                 s += std::string(100000, '}');
                 return s;
               }()});
  v.push_back({"unclosed nesting", std::string(50000, '[')});
  v.push_back({"name of 1 MB", graph("[{\"name\":\"" + std::string(1 << 20, 'a') + "\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]", "[]", "[\"x\"]")});
  v.push_back({"op of 1 MB", graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]", "[{\"name\":\"y\",\"op\":\"" + std::string(1 << 20, 'n') + "\",\"args\":[\"x\"]}]", "[\"y\"]")});
  {
    std::string open, close;
    for (int i = 0; i < 200000; ++i) {
      open += "{\"op\":\"neg\",\"args\":[";
      close += "]}";
    }
    v.push_back({"inline chain 200000 deep",
                 graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]",
                       "[{\"name\":\"y\",\"op\":\"neg\",\"args\":[" + open + "\"x\"" + close + "]}]", "[\"y\"]")});
  }
  {
    std::string nodes = "[";
    for (int i = 0; i < 3000; ++i) {
      if (i) nodes += ",";
      nodes += "{\"name\":\"n" + std::to_string(i) + "\",\"op\":\"neg\",\"args\":[\"" +
               (i ? "n" + std::to_string(i - 1) : std::string("x")) + "\"]}";
    }
    nodes += "]";
    v.push_back({"3000 chained nodes", graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]", nodes, "[\"n2999\"]")});
  }
  v.push_back({"constant fill of 2^40 elements",
               graph("[]", "[{\"name\":\"c\",\"dtype\":\"float32\",\"shape\":[1048576,1048576],\"fill\":1.0}]", "[]", "[\"c\"]")});
  v.push_back({"constant data shorter than shape",
               graph("[]", "[{\"name\":\"c\",\"dtype\":\"float32\",\"shape\":[1000000000],\"data\":[1.0]}]", "[]", "[\"c\"]")});
  v.push_back({"input of 2^62 elements times 4",
               graph("[{\"name\":\"x\",\"dtype\":\"float64\",\"shape\":[4611686018427387904,4]}]", "[]", "[]", "[\"x\"]")});
  v.push_back({"full of overflowing shape",
               graph("[]", "[]", "[{\"name\":\"f\",\"op\":\"full\",\"args\":[],\"shape\":[3037000500,3037000500],\"value\":1}]", "[\"f\"]")});
  v.push_back({"arange of 2^62 elements",
               graph("[]", "[]", "[{\"name\":\"f\",\"op\":\"arange\",\"args\":[],\"end\":4611686018427387904}]", "[\"f\"]")});
  v.push_back({"arange with huge float end",
               graph("[]", "[]", "[{\"name\":\"f\",\"op\":\"arange\",\"args\":[],\"end\":1e300,\"step\":1e-300}]", "[\"f\"]")});
  v.push_back({"expand to an overflowing shape",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[1,1]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"expand\",\"args\":[\"x\"],\"shape\":[4294967296,4294967296]}]", "[\"e\"]")});
  v.push_back({"reshape with two -1",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[4]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"reshape\",\"args\":[\"x\"],\"shape\":[-1,-1]}]", "[\"e\"]")});
  v.push_back({"reshape of a huge -1",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[4]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"reshape\",\"args\":[\"x\"],\"shape\":[-1,9223372036854775807]}]", "[\"e\"]")});
  v.push_back({"pad by int64 max",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[4]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"pad\",\"args\":[\"x\"],\"pad\":[9223372036854775807,9223372036854775807]}]", "[\"e\"]")});
  v.push_back({"slice with extreme bounds",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[4]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"slice\",\"args\":[\"x\"],\"dim\":0,\"start\":-9223372036854775808,\"end\":9223372036854775807,\"step\":9223372036854775807}]", "[\"e\"]")});
  v.push_back({"select with int64 min index",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[4]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"select\",\"args\":[\"x\"],\"dim\":-9223372036854775808,\"index\":-9223372036854775808}]", "[\"e\"]")});
  v.push_back({"cat of 10000 args",
               [&] {
                 std::string args;
                 for (int i = 0; i < 10000; ++i) args += std::string(i ? "," : "") + "\"x\"";
                 return graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[1]}]", "[]",
                              "[{\"name\":\"e\",\"op\":\"cat\",\"args\":[" + args + "],\"dim\":0}]", "[\"e\"]");
               }()});
  v.push_back({"permute with repeated dims",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2,3]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"permute\",\"args\":[\"x\"],\"dims\":[0,0]}]", "[\"e\"]")});
  v.push_back({"constant file outside",
               graph("[]", "[{\"name\":\"c\",\"dtype\":\"float32\",\"shape\":[2],\"file\":\"no/such/file.bin\"}]", "[]", "[\"c\"]")});
  v.push_back({"constant file is a directory",
               graph("[]", "[{\"name\":\"c\",\"dtype\":\"float32\",\"shape\":[2],\"file\":\".\"}]", "[]", "[\"c\"]")});
  v.push_back({"constant file empty name",
               graph("[]", "[{\"name\":\"c\",\"dtype\":\"float32\",\"shape\":[2],\"file\":\"\"}]", "[]", "[\"c\"]")});
  v.push_back({"name with a NUL escape",
               graph("[{\"name\":\"x\\u0000y\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]", "[]", "[\"x\\u0000y\"]")});
  // Control characters in names, ops, dtypes and keys: the error message must not echo them raw.
  v.push_back({"value name with a newline",
               graph("[{\"name\":\"a\\nb\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]", "[]", "[\"a\\nb\"]")});
  v.push_back({"op with a newline",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]",
                     "[{\"name\":\"y\",\"op\":\"ne\\ng\",\"args\":[\"x\"]}]", "[\"y\"]")});
  v.push_back({"dtype with a carriage return",
               graph("[{\"name\":\"x\",\"dtype\":\"float\\r32\",\"shape\":[2]}]", "[]", "[]", "[\"x\"]")});
  v.push_back({"unknown key with a newline",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]",
                     "[{\"name\":\"y\",\"op\":\"neg\",\"args\":[\"x\"],\"ke\\nepdim\":1}]", "[\"y\"]")});
  v.push_back({"format with a terminal escape",
               "{\"format\":\"stax-graph\\u001b[31m\",\"version\":1,\"name\":\"g\",\"inputs\":[],\"outputs\":[]}"});
  v.push_back({"graph name a keyword", "{\"format\":\"stax-graph\",\"version\":1,\"name\":\"int\",\"inputs\":[],\"constants\":[{\"name\":\"c\",\"dtype\":\"bool\",\"shape\":[],\"data\":[true]}],\"outputs\":[\"c\"]}"});
  v.push_back({"version as float", "{\"format\":\"stax-graph\",\"version\":1.0,\"name\":\"g\",\"inputs\":[],\"outputs\":[]}"});
  v.push_back({"version huge", "{\"format\":\"stax-graph\",\"version\":18446744073709551616,\"name\":\"g\",\"inputs\":[],\"outputs\":[]}"});
  v.push_back({"trailing garbage", graph("[]", "[{\"name\":\"c\",\"dtype\":\"bool\",\"shape\":[],\"data\":[true]}]", "[]", "[\"c\"]") + " x"});
  v.push_back({"two documents", graph("[]", "[{\"name\":\"c\",\"dtype\":\"bool\",\"shape\":[],\"data\":[true]}]", "[]", "[\"c\"]") + "{}"});
  v.push_back({"comments", "// c\n" + graph("[]", "[]", "[]", "[]")});
  v.push_back({"single quotes", "{'format':'stax-graph'}"});
  v.push_back({"1e999 as a literal",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"add\",\"args\":[\"x\",1e999]}]", "[\"e\"]")});
  v.push_back({"int literal beyond int64",
               graph("[{\"name\":\"x\",\"dtype\":\"int64\",\"shape\":[2]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"add\",\"args\":[\"x\",99999999999999999999999]}]", "[\"e\"]")});
  v.push_back({"int literal beyond int32 on int32",
               graph("[{\"name\":\"x\",\"dtype\":\"int32\",\"shape\":[2]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"mul\",\"args\":[\"x\",4294967296]}]", "[\"e\"]")});
  v.push_back({"float data beyond float32",
               graph("[]", "[{\"name\":\"c\",\"dtype\":\"float32\",\"shape\":[1],\"data\":[1e300]}]", "[]", "[\"c\"]")});
  v.push_back({"int data beyond int32",
               graph("[]", "[{\"name\":\"c\",\"dtype\":\"int32\",\"shape\":[1],\"data\":[2147483648]}]", "[]", "[\"c\"]")});
  v.push_back({"uint64 in int64 data",
               graph("[]", "[{\"name\":\"c\",\"dtype\":\"int64\",\"shape\":[1],\"data\":[18446744073709551615]}]", "[]", "[\"c\"]")});
  v.push_back({"clamp bounds beyond int32",
               graph("[{\"name\":\"x\",\"dtype\":\"int32\",\"shape\":[2]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"clamp\",\"args\":[\"x\"],\"min\":-9223372036854775808,\"max\":18446744073709551615}]", "[\"e\"]")});
  v.push_back({"full value beyond dtype",
               graph("[]", "[]", "[{\"name\":\"f\",\"op\":\"full\",\"args\":[],\"shape\":[2],\"value\":1e300,\"dtype\":\"float32\"}]", "[\"f\"]")});
  v.push_back({"var with nan correction",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"var\",\"args\":[\"x\"],\"correction\":\"nan\"}]", "[\"e\"]")});
  v.push_back({"var with 1e999 correction",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"var\",\"args\":[\"x\"],\"correction\":1e999}]", "[\"e\"]")});
  v.push_back({"leaky_relu slope nan",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"leaky_relu\",\"args\":[\"x\"],\"negative_slope\":\"nan\"}]", "[\"e\"]")});
  v.push_back({"layer_norm eps -inf",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"layer_norm\",\"args\":[\"x\"],\"normalized_shape\":[2],\"eps\":\"-inf\"}]", "[\"e\"]")});
  v.push_back({"layer_norm huge normalized_shape",
               graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]",
                     "[{\"name\":\"e\",\"op\":\"layer_norm\",\"args\":[\"x\"],\"normalized_shape\":[1,1,1,1,1,1,1,1,1,1,1,2]}]", "[\"e\"]")});
  v.push_back({"unsqueeze of 100 dims",
               [&] {
                 std::string nodes = "[";
                 for (int i = 0; i < 100; ++i)
                   nodes += std::string(i ? "," : "") + "{\"name\":\"u" + std::to_string(i) + "\",\"op\":\"unsqueeze\",\"args\":[\"" +
                            (i ? "u" + std::to_string(i - 1) : std::string("x")) + "\"],\"dim\":0}";
                 nodes += "]";
                 return graph("[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2]}]", "[]", nodes, "[\"u99\"]");
               }()});
  return v;
}

}  // namespace stax::robustness
