#include "python/convert.h"

#include "core/io/run_files.h"

#include <cmath>
#include <limits>
#include <pybind11/stl.h>
#include <string>

namespace svi::python {

namespace {

py::array column(const std::vector<Snapshot>& trace, double Snapshot::*field)
{
    py::array_t<double> a(py::ssize_t(trace.size()));
    auto v = a.mutable_unchecked<1>();
    for (std::size_t i = 0; i < trace.size(); ++i)
        v(py::ssize_t(i)) = trace[i].*field;
    return a;
}

py::list strings(const std::vector<std::string>& list)
{
    py::list out;
    for (const std::string& s : list)
        out.append(py::str(s));
    return out;
}

py::array ints(const std::vector<int>& list)
{
    py::array_t<int> a(py::ssize_t(list.size()));
    auto v = a.mutable_unchecked<1>();
    for (std::size_t i = 0; i < list.size(); ++i)
        v(py::ssize_t(i)) = list[i];
    return a;
}

} // namespace

py::dict traceColumns(const std::vector<Snapshot>& trace)
{
    py::dict out;
    py::array_t<std::int64_t> steps(py::ssize_t(trace.size()));
    auto s = steps.mutable_unchecked<1>();
    for (std::size_t i = 0; i < trace.size(); ++i)
        s(py::ssize_t(i)) = trace[i].step;
    out["step"] = steps;
    out["epochs"] = column(trace, &Snapshot::epochs);
    out["train_seconds"] = column(trace, &Snapshot::trainSeconds);
    out["wall_seconds"] = column(trace, &Snapshot::wallSeconds);
    out["rho"] = column(trace, &Snapshot::rho);
    out["elbo"] = column(trace, &Snapshot::elbo);
    for (const std::string& key : metricKeys(trace)) {
        py::array_t<double> a(py::ssize_t(trace.size()));
        auto v = a.mutable_unchecked<1>();
        for (std::size_t i = 0; i < trace.size(); ++i) {
            const auto it = trace[i].metrics.find(key);
            v(py::ssize_t(i)) = it == trace[i].metrics.end()
                                    ? std::numeric_limits<double>::quiet_NaN()
                                    : it->second;
        }
        out[py::str(key)] = a;
    }
    return out;
}

py::dict snapshotDict(const Snapshot& s)
{
    py::dict d;
    d["step"] = s.step;
    d["epochs"] = s.epochs;
    d["train_seconds"] = s.trainSeconds;
    d["wall_seconds"] = s.wallSeconds;
    d["rho"] = s.rho;
    d["elbo"] = s.elbo;
    d["final"] = s.final;
    py::dict metrics;
    for (const auto& [k, v] : s.metrics)
        metrics[py::str(k)] = v;
    d["metrics"] = metrics;
    return d;
}

py::dict outputsOf(const Preview* p, const DataSet* data)
{
    py::dict o;
    if (data && data->dense && data->dense->image) {
        const ImageLayout& im = *data->dense->image;
        o["original"] = numpyOf(im.original);
        o["observed"] = numpyOf(im.corrupted);
        o["mask"] = numpyOf(im.pixelObserved.cast<bool>());
    }
    if (!p)
        return o;
    if (p->reconstruction) {
        o["image"] = numpyOf(*p->reconstruction);
        o["image_full_pass"] = p->reconstructionFull;
    }
    if (p->atoms.size() > 0) {
        py::array atoms = numpyOf(p->atoms);
        if (p->atomWidth > 0 && p->atoms.cols() == Eigen::Index(p->atomWidth) * p->atomWidth)
            atoms = atoms.attr("reshape")(p->atoms.rows(), p->atomWidth, p->atomWidth);
        o["atoms"] = atoms;
        o["atom_weights"] = numpyOfVector(p->atomWeights);
        o["atoms_are"] = p->atomName;
        o["atom_weights_are"] = p->atomWeightName;
    }
    if (!p->topics.empty()) {
        py::list topics;
        for (const TopicSummary& t : p->topics) {
            py::dict d;
            d["index"] = t.index;
            d["weight"] = t.weight;
            d["words"] = strings(t.words);
            py::array_t<double> probs(py::ssize_t(t.probs.size()));
            auto v = probs.mutable_unchecked<1>();
            for (std::size_t i = 0; i < t.probs.size(); ++i)
                v(py::ssize_t(i)) = t.probs[i];
            d["probs"] = probs;
            topics.append(d);
        }
        o["topics"] = topics;
    }
    if (p->correlations) {
        o["topic_correlations"] = numpyOf(p->correlations->matrix);
        o["correlated_topics"] = ints(p->correlations->topics);
    }
    if (p->factors) {
        o["user_factors"] = numpyOf(p->factors->users);
        o["item_factors"] = numpyOf(p->factors->items);
        o["score_offset"] = p->factors->offset;
    }
    if (p->weights) {
        o["weight_names"] = strings(p->weights->names);
        o["weight_mean"] = numpyOfVector(p->weights->mean);
        o["weight_sd"] = numpyOfVector(p->weights->sd);
    }
    if (p->slice) {
        py::dict d;
        d["feature"] = p->slice->feature;
        d["label"] = p->slice->label;
        d["x"] = numpyOfVector(p->slice->x);
        d["mean"] = numpyOfVector(p->slice->mean);
        d["sd"] = numpyOfVector(p->slice->sd);
        d["point_x"] = numpyOfVector(p->slice->pointX);
        d["point_y"] = numpyOfVector(p->slice->pointY);
        o["prediction_slice"] = d;
    }
    if (p->graph) {
        o["communities"] = ints(p->graph->community);
        o["node_order"] = ints(p->graph->order);
        o["link_probability"] = numpyOf(p->graph->linkProbability);
        o["community_weights"] = numpyOfVector(p->graph->communityWeights);
    }
    if (p->covariance) {
        o["covariance_model"] = numpyOf(p->covariance->model);
        o["covariance_empirical"] = numpyOf(p->covariance->empirical);
    }
    return o;
}

py::object pythonOf(const QJsonDocument& json)
{
    return py::module_::import("json").attr("loads")(
        py::str(json.toJson(QJsonDocument::Compact).toStdString()));
}

} // namespace svi::python
