#include "svg_writer.h"

#include <cmath>
#include <cstdio>

namespace stax::viz::detail {

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') out += '?';
        else out += c;
    }
  }
  return out;
}

std::string num(double v) {
  double r = std::round(v * 10.0) / 10.0;
  if (r == 0) r = 0;  // no "-0"
  char buf[32];
  if (r == std::floor(r)) std::snprintf(buf, sizeof buf, "%.0f", r);
  else std::snprintf(buf, sizeof buf, "%.1f", r);
  return buf;
}

std::string bytes_text(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else if (v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

double text_width(std::string_view text, double size) {
  std::size_t chars = 0;
  for (char c : text)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++chars;  // UTF-8 continuation bytes do not count
  return static_cast<double>(chars) * size * 0.6;
}

std::string clip(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  return std::string(text.substr(0, max_chars > 3 ? max_chars - 3 : 0)) + "...";
}

SvgWriter::SvgWriter(double width, double height, std::string_view title) {
  out_ = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out_ += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(height) +
          "\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\">\n";
  out_ += "<title>" + xml_escape(title) + "</title>\n";
  out_ += "<rect x=\"0\" y=\"0\" width=\"" + num(width) + "\" height=\"" + num(height) + "\" fill=\"#ffffff\"/>\n";
}

void SvgWriter::rect(double x, double y, double w, double h, std::string_view style, double radius) {
  out_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" + num(h) + "\"";
  if (radius > 0) out_ += " rx=\"" + num(radius) + "\"";
  out_ += " style=\"" + xml_escape(style) + "\"/>\n";
}

void SvgWriter::line(double x1, double y1, double x2, double y2, std::string_view style) {
  out_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
          "\" style=\"" + xml_escape(style) + "\"/>\n";
}

void SvgWriter::text(double x, double y, std::string_view text, std::string_view style, std::string_view anchor) {
  out_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"";
  if (anchor != "start") out_ += " text-anchor=\"" + std::string(anchor) + "\"";
  out_ += " style=\"" + xml_escape(style) + "\">" + xml_escape(text) + "</text>\n";
}

void SvgWriter::path(std::string_view d, std::string_view style) {
  out_ += "<path d=\"" + std::string(d) + "\" style=\"" + xml_escape(style) + "\"/>\n";
}

void SvgWriter::begin_group(std::string_view cls, std::string_view title) {
  out_ += "<g class=\"" + xml_escape(cls) + "\"><title>" + xml_escape(title) + "</title>\n";
}

void SvgWriter::end_group() { out_ += "</g>\n"; }

std::string SvgWriter::finish() { return out_ + "</svg>\n"; }

}  // namespace stax::viz::detail
