// A small writer of SVG text: elements with attributes, escaped text, numbers printed the same
// way on every machine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stax::viz::detail {

// `s` escaped for XML text and attribute values.
std::string xml_escape(std::string_view s);
// A coordinate: at most one decimal, no trailing ".0".
std::string num(double v);
// "512 B", "32 KiB", "1.5 MiB".
std::string bytes_text(std::uint64_t bytes);
// The width of `text` in the pictures' monospace font at `size` pixels.
double text_width(std::string_view text, double size);
// `text` cut to `max_chars` characters with "..." at the end when longer.
std::string clip(std::string_view text, std::size_t max_chars);

class SvgWriter {
 public:
  SvgWriter(double width, double height, std::string_view title);
  void rect(double x, double y, double w, double h, std::string_view style, double radius = 0);
  void line(double x1, double y1, double x2, double y2, std::string_view style);
  // `anchor`: "start", "middle" or "end".
  void text(double x, double y, std::string_view text, std::string_view style, std::string_view anchor = "start");
  void path(std::string_view d, std::string_view style);
  // <g> with a <title> (shown on hover); close with end_group.
  void begin_group(std::string_view cls, std::string_view title);
  void end_group();
  void raw(std::string_view text) { out_ += text; }
  std::string finish();

 private:
  std::string out_;
};

}  // namespace stax::viz::detail
