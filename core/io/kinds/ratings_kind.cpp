// Ratings (MovieLens: u.data, ratings.dat, ratings.csv, or a folder holding one) read as
// users × items; a share of each user's ratings held out as test and validation entries
// (Gopalan, Hofman & Blei 2015, §4).

#include "core/data/ratings.h"
#include "core/io/data_files.h"
#include "core/io/data_kinds.h"
#include "core/io/kinds/kinds.h"
#include "core/io/ratings_files.h"
#include "core/io/ratings_part.h"
#include "core/io/run_files.h"

#include <algorithm>
#include <optional>
#include <set>

namespace svi::kinds {
namespace {

class RawRatings : public RawData
{
public:
    explicit RawRatings(Ratings r) : m_ratings(std::move(r)) {}
    // This rank's part of ratings read in parts.
    explicit RawRatings(RatingsPart part)
        : m_ratings(std::move(part.ratings)), m_part(part.info), m_total(part.total)
    {
    }
    std::string summary() const override
    {
        return groupedNumber(m_part ? m_total : std::int64_t(m_ratings.entries.size())) +
               " ratings of " + groupedNumber(m_ratings.users()) + " users × " +
               groupedNumber(m_ratings.items()) + " items" + partsNote();
    }
    const Ratings& ratings() const { return m_ratings; }
    // Set when read in parts: this rank's users and the ranks.
    const RatingsPartInfo* part() const { return m_part ? &*m_part : nullptr; }
    // " · read in R parts", or "" when read whole.
    std::string partsNote() const
    {
        return m_part ? " · read in " + std::to_string(m_part->ranks->size()) + " parts" : "";
    }

private:
    Ratings m_ratings;
    std::optional<RatingsPartInfo> m_part;
    std::int64_t m_total = 0;
};

// "user TAB item TAB rating" with the file's ids (the layout of hgaprec, Gopalan et al.'s
// code), sorted by user then item.
QByteArray ratingsTsv(const CountData& data, const SparseRows& rows)
{
    QByteArray out;
    for (std::int64_t u = 0; u < rows.rows(); ++u) {
        const auto cols = rows.rowCols(u);
        const auto ys = rows.rowCounts(u);
        const QByteArray uid = QByteArray::number(
            std::size_t(u) < data.rowIds.size() ? data.rowIds[std::size_t(u)] : u);
        for (std::size_t n = 0; n < cols.size(); ++n) {
            const qint64 iid = std::size_t(cols[n]) < data.columnIds.size()
                                   ? data.columnIds[std::size_t(cols[n])]
                                   : cols[n];
            out += uid + '\t' + QByteArray::number(iid) + '\t' +
                   QByteArray::number(double(ys[n]), 'g', 6) + '\n';
        }
    }
    return out;
}

std::string writeRatingsSplit(const BuiltData& built, const std::string& folder)
{
    const CountData& data = *built.data.counts;
    const QString dir = QString::fromStdString(folder);
    writeFileAtomically(dir + "/train.tsv", ratingsTsv(data, data.train));
    writeFileAtomically(dir + "/test.tsv", ratingsTsv(data, data.heldOut));
    writeFileAtomically(dir + "/validation.tsv", ratingsTsv(data, data.validation));
    return groupedNumber(data.train.nonZeros()) + " training, " +
           groupedNumber(data.heldOut.nonZeros()) + " test and " +
           groupedNumber(data.validation.nonZeros()) +
           " validation ratings (train.tsv, test.tsv, validation.tsv)";
}

// The users, items and ratings as read() reads them, the rating scale and how many items the
// titles file names.
DataReport inspectRatings(const DataDescription& d)
{
    const Ratings r = loadRatings(d.files.front(), getChoice(d.settings, "items"));
    std::set<double> scale; // the rating scale; for counts, their range
    for (const Rating& e : r.entries)
        scale.insert(double(e.value));
    if (r.counts && scale.size() > 2)
        scale = {*scale.begin(), *scale.rbegin()};
    // An item the titles file does not name has its id as title (setItemTitles).
    std::int64_t titled = 0;
    for (std::size_t i = 0; i < r.itemTitles.size(); ++i)
        titled +=
            r.itemTitles[i].empty() || r.itemTitles[i] == std::to_string(r.itemIds[i]) ? 0 : 1;
    const double cells = std::max(1.0, double(r.users()) * double(r.items()));
    const auto format = ratingsFormatOf(r.source);
    const std::string layout = !format                         ? "ratings"
                               : *format == RatingsFormat::Tab ? "MovieLens u.data (tab-separated)"
                               : *format == RatingsFormat::Dat ? "MovieLens ratings.dat (::)"
                               : *format == RatingsFormat::LastFm
                                   ? "Last.fm user_artists.dat (plays, tab-separated)"
                                   : "MovieLens ratings.csv";
    return {{
        {"format", "format", layout, {}, {}},
        {"users", "users", r.users(), {}, {}},
        {"items", "items", r.items(), {}, {}},
        {"ratings", "ratings", std::int64_t(r.entries.size()), {}, {}},
        {"filled_percent",
         "filled",
         100.0 * double(r.entries.size()) / cells,
         "% of the users × items matrix",
         {}},
        {"values",
         r.counts ? "counts from, to" : "values",
         std::vector<double>(scale.begin(), scale.end()),
         {},
         {}},
        {"titled_items", "titles", titled, "of " + std::to_string(r.items()) + " items", {}},
    }};
}

} // namespace

DataKindSpec ratings()
{
    DataKindSpec k;
    k.key = "ratings";
    k.label = "Ratings";
    k.task = "recommendation: a share of each user's ratings is held out; every unrated item is "
             "ranked (precision and recall at 20)";
    k.formats = "MovieLens u.data, ratings.dat, ratings.csv; Last.fm user_artists.dat (play "
                "counts); or a folder holding one";
    k.settings = RatingsOptions::allParams();
    k.settings.push_back(
        textParam("items", "Titles file", "the items' titles; empty = found beside the ratings"));
    k.readSettings = {"items"};
    k.defaultModel = "hpf";
    k.views = {DataView::Recommendations};
    k.recognise = [](const FileProbe& f) { return f.content == "ratings"; };
    k.read = [](const DataDescription& d) -> std::shared_ptr<const RawData> {
        return std::make_shared<RawRatings>(
            loadRatings(d.files.front(), getChoice(d.settings, "items")));
    };
    // A ratings file (not gzip'd) splits by lines: each rank reads its byte range, then holds
    // the ratings of its users (ratings_part.h).
    k.readPart = [](const DataDescription& d,
                    Communicator& ranks) -> std::shared_ptr<const RawData> {
        std::optional<RatingsPart> part =
            readRatingsPart(d.files.front(), getChoice(d.settings, "items"), ranks);
        if (!part)
            return nullptr;
        return std::make_shared<RawRatings>(std::move(*part));
    };
    k.inspect = inspectRatings;
    k.build = [](const RawData& raw, const DataDescription& d) {
        const auto& rr = static_cast<const RawRatings&>(raw);
        RatingsSplitStats s;
        BuiltData out;
        out.data =
            makeRatingsData(rr.ratings(), RatingsOptions::fromParams(d.settings), &s, rr.part());
        out.summary = groupedNumber(s.users) + " users × " + groupedNumber(s.items) + " items · " +
                      groupedNumber(s.train) + " training, " + groupedNumber(s.test) +
                      " test and " + groupedNumber(s.validation) + " validation ratings" +
                      rr.partsNote();
        out.facts = {{"users", double(s.users)},
                     {"items", double(s.items)},
                     {"train", double(s.train)},
                     {"test", double(s.test)},
                     {"validation", double(s.validation)},
                     {"dropped_below_threshold", double(s.droppedBelowThreshold)},
                     {"users_without_test", double(s.usersWithoutTest)},
                     {"returned_to_training", double(s.returnedToTraining)}};
        return out;
    };
    k.writeSplit = writeRatingsSplit;
    return k;
}

} // namespace svi::kinds
