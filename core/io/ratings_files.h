#pragma once
// Ratings files (users × items) in the three MovieLens layouts, and the item titles beside them,
// read into svi::Ratings (core/data/ratings.h).
//
// Ratings, one per line, each line "user item rating [timestamp]":
//   - Tab (ml-100k's u.data, and its splits u1.base … u5.test, ua/ub.base/test): fields
//     separated by TAB, no header: "196\t242\t3\t881250949".
//   - Dat (ml-1m, ml-10m ratings.dat): "UserID::MovieID::Rating::Timestamp".
//   - Csv (ml-latest, ml-20m, ml-25m ratings.csv): a header "userId,movieId,rating,timestamp",
//     then "1,296,5.0,1147880044"; half stars (0.5–5.0).
//   - LastFm (HetRec 2011 Last.fm, user_artists.dat): a header "userID TAB artistID TAB weight",
//     then "2\t51\t13883": the plays of an artist by a user, a whole number ≥ 1 (the values are
//     counts: Ratings.counts), CRLF line ends.
// Ids are whole numbers ≥ 1 (any size up to 2⁶³ − 1; MovieLens numbers them from 1). A rating
// is any finite number > 0: MovieLens uses 1–5 stars or 0.5–5 in half stars, other sources
// other scales, and makeRatingsData only needs counts > 0 (a zero is not a rating but the
// absence of one). The timestamp, when present, must be a whole number and is not kept; it may
// be left out (three fields), so "user item rating" triples read too. LF or CRLF line ends, a
// UTF-8 byte-order mark, gzip (whatever the name says) and blank lines (skipped; line numbers
// count them) are accepted. A Csv file's header is recognised by its first field not starting
// with a digit and must then begin "userId,movieId,rating" (any case); without it the first
// line is a rating.
//
// Users and items are re-indexed densely in ascending id order (Ratings.userIds / itemIds), so
// index order is id order whatever order the lines come in; entries keep the file's order.
//
// A (user, item) pair rated twice is an error naming both lines: MovieLens files never repeat a
// pair, so a repeat means two files were concatenated or a file was corrupted, and silently
// adding the two ratings or keeping one would hide that.
//
// Item titles (optional), one item per line:
//   - u.item (ml-100k): "movie id | movie title | release date | video release date | IMDb URL
//     | 19 genre flags", '|'-separated;
//   - movies.dat (ml-1m, ml-10m): "MovieID::Title::Genres";
//   - movies.csv (ml-latest, ml-20m, ml-25m): a header "movieId,title,genres", then CSV lines
//     whose titles are double-quoted when they hold a comma or a quote ("" for a quote); a
//     quoted field cannot span lines;
//   - artists.dat (Last.fm): a header "id TAB name TAB url TAB pictureURL", then TAB-separated
//     lines, the name the title.
// Only the id and the title are read. A file is decoded as UTF-8 when it is valid UTF-8 and as
// Latin-1 otherwise (ml-100k and ml-1m are Latin-1, the later sets UTF-8); titles are returned
// as UTF-8 with surrounding spaces removed. Items rated but without a title line are titled by
// their id; title lines of items never rated are ignored; an id listed twice is an error.
//
// Every failure is a DataError naming the file and, for a bad line, its number (from 1, blank
// lines included) and the field, e.g. "cannot read 'u.data' line 7, field 3 (rating): 'x' is
// not a number" or "cannot read 'u.data' line 7: user 3 rated item 12 again (first at line 2)".
// Uses QtCore and zlib; the functions are reentrant and may run on any thread.

#include "core/data/ratings.h"
#include "core/io/data_error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace svi {

enum class RatingsFormat { Tab, Dat, Csv, LastFm };

// The layout of a ratings file: what its first line shows (ratingsFormatOfText; gzip is
// inflated whatever the name) or, when it shows none, what its name says (ratingsFormatOfName),
// so that the reader then names the line that is not a rating. A folder holding a ratings file
// (ratingsFileIn) has that file's layout. std::nullopt for anything else; a path that cannot be
// read has the layout its name says.
std::optional<RatingsFormat> ratingsFormatOf(const std::string& path);

// The layout the first line of `text` (a file's first bytes; only the first 4 KB are looked at)
// shows, a UTF-8 byte-order mark skipped: a rating separated by TAB → Tab, by "::" → Dat, or a
// header starting "userId,movieId,rating" (any case) → Csv, "userID TAB artistID TAB weight" →
// LastFm. A headerless comma-separated line is
// not taken for ratings: it is far more likely a table.
std::optional<RatingsFormat> ratingsFormatOfText(std::string_view text);

// The layout a MovieLens name says (case-insensitive, optionally .gz): u.data, u*.base, u*.test
// → Tab; ratings.dat → Dat; ratings.csv → Csv; user_artists.dat → LastFm.
std::optional<RatingsFormat> ratingsFormatOfName(const std::string& path);

// The ratings file in a folder: u.data, ratings.dat, ratings.csv or user_artists.dat (tried in
// this order, each
// also with .gz). Empty when none is there or `folder` is not a folder.
std::string ratingsFileIn(const std::string& folder);

// The titles file beside a ratings file: u.item for Tab, movies.dat for Dat, movies.csv for Csv,
// artists.dat for LastFm (each also with .gz), in the same folder. Empty when none exists.
std::string findItemTitles(const std::string& ratingsPath, RatingsFormat format);

// Reads a ratings file in the given layout (titles are not read: itemTitles stays empty).
Ratings readRatings(const std::string& path, RatingsFormat format);

// (item id, title) pairs of a titles file in file order, titles as UTF-8. The layout comes
// from the name (u.item, movies.dat, movies.csv, artists.dat, optionally .gz) or else from the
// first line (a header "movieId," → movies.csv; "id TAB name" → artists.dat; "::" →
// movies.dat; '|' → u.item).
std::vector<std::pair<std::int64_t, std::string>> readItemTitles(const std::string& path);

// Sets ratings.itemTitles from `titles` (see the top of this file); the item ids not in `titles`
// get their id as title.
void setItemTitles(Ratings& ratings,
                   const std::vector<std::pair<std::int64_t, std::string>>& titles);

// Reads a ratings file, or the ratings file of a folder, in whichever layout ratingsFormatOf
// says, with the titles of `itemsPath` or, when empty, of the titles file beside it
// (findItemTitles; none is fine). source = the ratings file's path.
Ratings loadRatings(const std::string& path, const std::string& itemsPath = {});

} // namespace svi
