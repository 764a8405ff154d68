#pragma once
// The TEXT segment of an FCS file: its keyword/value pairs, read as the FCS 3.1 standard says
// (a doubled delimiter is an escaped one) and, where that reading goes wrong, as FCS 2.0
// writers wrote empty values. Internal to core/io (fcs_file.cpp); reentrant, any thread.

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace svi::fcs {

// `s` without the padding real files put around values (spaces, the odd newline or NUL).
std::string_view trim(std::string_view s);

// FCS 3.1 makes TEXT values UTF-8, but older writers used Latin-1 (e.g. 'µ', 'ª' as one
// byte). A value that is not valid UTF-8 is taken as Latin-1, whose code points are its bytes.
std::string toUtf8(std::string_view s);

std::string upperAscii(std::string s);

// Splits a TEXT segment (its first byte is the delimiter) into keyword/value pairs and adds them
// to `keywords` (keys upper-cased, values trimmed, both UTF-8); keys already there are kept (the
// primary TEXT wins over the supplemental). A doubled delimiter is an escaped one, unless that
// reading leaves keywords swallowed by others (a keyword holding the delimiter, or a value
// holding the delimiter and then a '$' keyword) and reading the doubled delimiters after
// keywords as empty values does not: CellQuest (FACSCalibur, FCS 2.0) writes "\$P3S\\$P4S\\…"
// for empty values. Then that reading is taken, as flowCore's emptyValue does. What was
// tolerated is added to `notes`, one sentence each, naming `what` ("TEXT").
void parseText(std::string_view segment, char delimiter,
               std::map<std::string, std::string>& keywords, std::vector<std::string>& notes,
               const char* what);

} // namespace svi::fcs
