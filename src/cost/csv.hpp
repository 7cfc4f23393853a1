// Private: RFC 4180 CSV rows for the cost reports.
#pragma once

#include <string>
#include <vector>

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::cost::detail {

// Appends the fields as one CSV line ("\r\n"-free: "\n"), quoting a field that holds a comma,
// a quote, a newline or leading/trailing spaces.
inline void append_csv_row(std::string& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i != 0) out += ',';
    const std::string& f = fields[i];
    const bool quote = f.find_first_of(",\"\n\r") != std::string::npos ||
                       (!f.empty() && (f.front() == ' ' || f.back() == ' '));
    if (!quote) {
      out += f;
      continue;
    }
    out += '"';
    for (char c : f) {
      if (c == '"') out += '"';
      out += c;
    }
    out += '"';
  }
  out += '\n';
}

}  // namespace budcore::cost::detail

#pragma GCC visibility pop
