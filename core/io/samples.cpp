#include "core/io/samples.h"

#include "core/io/data_error.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace svi {

const std::vector<SampleData>& sampleData()
{
    static const std::vector<SampleData> samples = {
        {.key = "camera",
         .label = "Image: a camera on a tripod (512 × 512, grey)",
         .about = "the default image: a modern photograph from scikit-image's sample data",
         .licence = "CC0",
         .files = {kDefaultImage}},
        {.key = "cytof",
         .label = "Mass cytometry: two anti-PD-1 patients (573 cells × 30 channels)",
         .about = "CyTOF FCS 3.0 files of Krieg et al. 2018 (Nat. Med.), as distributed by "
                  "HDCytoData",
         .licence = "MIT",
         .files = {":/samples/krieg_cytof/Data23_Panel3_base_NR4_Patient9.fcs",
                   ":/samples/krieg_cytof/Data23_Panel3_base_R5_Patient15.fcs"}},
        {.key = "austen",
         .label = "Corpus: three Jane Austen novels, one document per chapter (116)",
         .about = "Pride and Prejudice, Persuasion and Northanger Abbey (Project Gutenberg texts, "
                  "via the R package janeaustenr) cut at their chapter headings",
         .licence = "public domain",
         .files = {":/samples/austen.tar.gz"}},
        {.key = "movietweetings",
         .label = "Ratings: MovieTweetings, 6,656 ratings 0–10 of 1,107 users",
         .about = "the 10K snapshot of MovieTweetings (Dooms et al. 2013): movie ratings tweeted "
                  "from IMDb, users with three ratings or more, with the films' titles",
         .licence = "MIT",
         .files = {":/samples/movietweetings_10k/ratings.dat"},
         .companions = {":/samples/movietweetings_10k/movies.dat",
                        ":/samples/movietweetings_10k/LICENSE"}},
        {.key = "biopsy",
         .label = "Labelled: breast biopsies, benign or malignant (683 × 9)",
         .about = "the Wisconsin breast cancer data (Wolberg & Mangasarian 1990) as in R's "
                  "MASS::biopsy, rows with a missing value dropped; y = 1 for malignant",
         .licence = "CC BY 4.0 (UCI)",
         .files = {":/samples/biopsy.csv"},
         .kind = "labelled"},
        {.key = "karate",
         .label = "Graph: Zachary's karate club (34 members, 78 ties)",
         .about = "Zachary 1977 (J. Anthropol. Res. 33), from Mark Newman's network data, GML",
         .licence = "freely distributed for research",
         .files = {":/samples/karate.gml"}},
    };
    return samples;
}

const SampleData* findSample(const std::string& key)
{
    for (const SampleData& s : sampleData())
        if (s.key == key)
            return &s;
    return nullptr;
}

std::string sampleKeys()
{
    std::string out;
    for (const SampleData& s : sampleData())
        out += (out.empty() ? "" : ", ") + s.key;
    return out;
}

std::vector<std::string> sampleFiles(const SampleData& sample, const std::string& folder)
{
    const QString root =
        folder.empty()
            ? QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + "/samples"
            : QString::fromStdString(folder);
    const QString dir = root + "/" + QString::fromStdString(sample.key);
    if (!QDir().mkpath(dir))
        throw DataError("sample " + sample.key + ": cannot create the folder '" +
                        dir.toStdString() + "'");
    std::vector<std::string> out;
    std::vector<std::string> all = sample.files;
    all.insert(all.end(), sample.companions.begin(), sample.companions.end());
    for (const std::string& f : all) {
        const QString from = QString::fromStdString(f);
        const QString to = dir + "/" + QFileInfo(from).fileName();
        QFile source(from);
        if (!source.exists())
            throw DataError("sample " + sample.key + ": '" + f +
                            "' is not embedded in this program");
        // A copy of the same size is the sample already copied (the files are read-only data).
        if (QFileInfo(to).size() != source.size()) {
            QFile::remove(to);
            if (!source.copy(to))
                throw DataError("sample " + sample.key + ": cannot write '" + to.toStdString() +
                                "': " + source.errorString().toStdString());
            QFile::setPermissions(to, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup |
                                          QFile::ReadOther);
        }
        if (out.size() < sample.files.size())
            out.push_back(to.toStdString());
    }
    return out;
}

} // namespace svi
