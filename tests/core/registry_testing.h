#pragma once
// Every (model, algorithm) of the registry on small data of the kind it fits, with the small
// settings its entry declares (AlgorithmEntry::smallSettings), so that a test can run each one
// in a fraction of a second, also under the sanitizers. Used by the tests that go over the
// whole registry (divergence, checkpoints, distribution).

#include "core/data/ratings.h"
#include "core/math/random.h"
#include "core/models/bpfa/bpfa_synthetic.h"
#include "core/models/lda/lda_synthetic.h"
#include "core/run/registry.h"
#include "tests/core/epm_testing.h"

#include <QtTest>
#include <cmath>
#include <map>
#include <memory>
#include <string>

namespace svi::test_support {

inline ParamValue real(double v)
{
    return ParamValue(v);
}
inline ParamValue integer(std::int64_t v)
{
    return ParamValue(v);
}

inline DataSet denseData()
{
    BpfaSyntheticOptions o;
    o.N = 400;
    o.D = 10;
    o.K = 6;
    o.seed = 3;
    return makeBpfaSynthetic(o).data;
}

inline DataSet corpusData()
{
    LdaSyntheticOptions o;
    o.documents = 120;
    o.V = 60;
    o.K = 4;
    o.wordsPerDocument = 30;
    o.seed = 4;
    return makeLdaSynthetic(o).data;
}

// 40 users × 30 items, each pair rated 1–5 with probability 0.3.
inline DataSet ratingsData()
{
    Ratings r;
    for (std::int64_t u = 1; u <= 40; ++u)
        r.userIds.push_back(u);
    for (std::int64_t i = 1; i <= 30; ++i)
        r.itemIds.push_back(i);
    Rng rng(5);
    for (int u = 0; u < 40; ++u)
        for (int i = 0; i < 30; ++i)
            if (rng.uniform() < 0.3 || i == u % 30)
                r.entries.push_back({u, i, float(1 + int(rng.uniform() * 5.0) % 5), 0});
    r.source = "ratings in memory";
    return makeRatingsData(r, RatingsOptions{});
}

// 300 labelled rows of 3 features in 30 groups, binary labels from a logistic model; 60 test
// rows.
inline DataSet labelledData()
{
    auto d = std::make_shared<LabelledData>();
    Rng rng(6);
    d->x.resize(300, 3);
    d->y.resize(300);
    for (int i = 0; i < 300; ++i) {
        for (int j = 0; j < 3; ++j)
            d->x(i, j) = rng.normal();
        const double f = d->x(i, 0) - 0.5 * d->x(i, 1);
        d->y[i] = rng.uniform() < 1.0 / (1.0 + std::exp(-f)) ? 1.0 : 0.0;
        (i < 240 ? d->trainingRows : d->testRows).push_back(i);
        d->group.push_back(i % 30); // 30 groups, for the mixed-effects models
    }
    for (int g = 0; g < 30; ++g)
        d->groupNames.push_back("g" + std::to_string(g + 1));
    d->labelKind = LabelKind::Binary;
    d->source = "labelled rows in memory";
    return DataSet(LabelledDataPtr(d));
}

// 40 nodes in 2 planted communities, a fifth of the pairs held out.
inline DataSet graphData()
{
    return DataSet(::test_support::plantedGraph(40, 2, 0.4, 0.05, 0.2, 7).data);
}

// Data of the kind the entry accepts: its own kind for counts models (ratings for the
// recommenders, a corpus for topic models), told apart by what their parameters ask for.
inline DataSet dataFor(const AlgorithmEntry& e)
{
    if (e.fits("table"))
        return denseData();
    if (e.fits("labelled"))
        return labelledData();
    if (e.fits("graph"))
        return graphData();
    for (const ParamSpec& p : e.params)
        if (p.key == "eval_users")
            return ratingsData();
    return corpusData();
}

// The entry's declared parameters resolved from its small settings and `extra` (which wins),
// each applied where the entry declares the key. Fails the test on a value the declarations
// refuse.
inline ParamValues smallParams(const AlgorithmEntry& e, const ParamValues& extra = {})
{
    ParamValues given;
    for (const ParamSpec& p : e.params) {
        if (e.smallSettings.count(p.key))
            given[p.key] = e.smallSettings.at(p.key);
        if (extra.count(p.key))
            given[p.key] = extra.at(p.key);
    }
    auto resolved = resolveParams(e.params, given);
    if (auto* err = std::get_if<ParamError>(&resolved))
        qFatal("%s/%s: %s", e.model.c_str(), e.algorithm.c_str(), err->message.c_str());
    return std::get<ParamValues>(resolved);
}

} // namespace svi::test_support
