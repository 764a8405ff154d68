// The variance of black-box VI's gradient estimators at one q (not a test).
//
//   bench_bbvi_variance MODEL FILE... [--data KEY=VALUE]... [--set KEY=VALUE]...
//                       [--steps N] [--repeats R] [--seed S]
//
// Reads the data as `svi run` does (--data: the kind's settings, as the window's form names
// them: groups=subject, exclude=base,age,period, test_share=0), fits MODEL's bbvi entry for N
// steps (default 500) with the declared estimator (Rao-Blackwellised, with control variates;
// --set: its other parameters), then measures at that q — every estimator given the fitted
// state — the trace of the covariance of the global gradient estimate over R (default 50)
// independent estimates, each on a minibatch of the declared size with S draws: the plain
// score function (Algorithm 2), Rao-Blackwellised, Rao-Blackwellised with control variates,
// and reparameterised where the model has gradients. Prints each variance and its ratio to the
// plain estimator's. The same q and minibatches for all four: only the estimator differs.

#include "core/base/params.h"
#include "core/base/state_archive.h"
#include "core/io/data_kinds.h"
#include "core/models/builtin.h"
#include "core/run/registry.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace svi;

namespace {

ParamValue parsed(const std::vector<ParamSpec>& specs, const std::string& assignment)
{
    const auto eq = assignment.find('=');
    if (eq == std::string::npos)
        throw std::invalid_argument("expected KEY=VALUE, got '" + assignment + "'");
    const ParamSpec spec = paramNamed(specs, assignment.substr(0, eq));
    auto value = parseParam(spec, assignment.substr(eq + 1));
    if (const auto* error = std::get_if<ParamError>(&value))
        throw std::invalid_argument(error->message);
    return std::get<ParamValue>(value);
}

std::string keyOf(const std::string& assignment)
{
    return assignment.substr(0, assignment.find('='));
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: bench_bbvi_variance MODEL FILE... [--data KEY=VALUE]... "
                             "[--set KEY=VALUE]... [--steps N] [--repeats R] [--seed S]\n");
        return 2;
    }
    try {
        const std::string model = argv[1];
        DataDescription desc;
        std::vector<std::string> dataSettings, sets;
        int steps = 500, repeats = 50;
        std::uint64_t seed = 1;
        for (int i = 2; i < argc; ++i) {
            const std::string a = argv[i];
            const bool more = i + 1 < argc;
            if (a == "--data" && more)
                dataSettings.push_back(argv[++i]);
            else if (a == "--set" && more)
                sets.push_back(argv[++i]);
            else if (a == "--steps" && more)
                steps = std::stoi(argv[++i]);
            else if (a == "--repeats" && more)
                repeats = std::stoi(argv[++i]);
            else if (a == "--seed" && more)
                seed = std::stoull(argv[++i]);
            else
                desc.files.push_back(a);
        }
        const Registry& registry = builtinRegistry();
        const AlgorithmEntry* entry = registry.find(model, "bbvi");
        if (!entry)
            throw std::invalid_argument("model '" + model + "' has no bbvi algorithm");
        desc = withKindFor(desc, model, "bbvi");
        const DataKindSpec& kind = kindOf(desc);
        for (const std::string& s : dataSettings)
            desc.settings[keyOf(s)] = parsed(kind.settings, s);
        const PreparedData prepared = prepareData(desc);
        const DataSet& data = prepared.built.data;

        ParamValues given;
        for (const std::string& s : sets)
            given[keyOf(s)] = parsed(entry->params, s);
        given["variance_repeats"] = std::int64_t(repeats);
        const auto resolve = [&](ParamValues values) {
            auto r = resolveParams(entry->params, values);
            if (const auto* error = std::get_if<ParamError>(&r))
                throw std::invalid_argument(error->message);
            return std::get<ParamValues>(r);
        };
        // The fit: the declared estimator.
        std::unique_ptr<Trainer> fit = entry->make(data, resolve(given), seed);
        for (int t = 1; t <= steps; ++t)
            fit->step(t);
        StateArchive state;
        fit->visitState(state);

        struct Variant
        {
            const char* name;
            ParamValues settings;
        };
        std::vector<Variant> variants = {
            {"plain score function",
             {{"rao_blackwell", false}, {"control_variate", false}, {"estimator", "score"}}},
            {"Rao-Blackwellised",
             {{"rao_blackwell", true}, {"control_variate", false}, {"estimator", "score"}}},
            {"RB + control variates",
             {{"rao_blackwell", true}, {"control_variate", true}, {"estimator", "score"}}},
            {"reparameterised", {{"estimator", "reparam"}}},
        };
        const bool hasReparam =
            std::any_of(entry->params.begin(), entry->params.end(),
                        [](const ParamSpec& p) { return p.key == "estimator"; });
        if (!hasReparam) {
            variants.pop_back();
            for (Variant& v : variants)
                v.settings.erase("estimator");
        }
        std::printf("%s bbvi on %s: %d steps fitted; %d gradient estimates at that q\n",
                    model.c_str(), desc.files.empty() ? "-" : desc.files.front().c_str(), steps,
                    repeats);
        std::printf("%-24s %16s %12s\n", "estimator", "grad_variance", "vs plain");
        double plain = 0.0;
        for (const Variant& v : variants) {
            ParamValues values = given;
            for (const auto& [key, value] : v.settings)
                values[key] = value;
            std::unique_ptr<Trainer> t = entry->make(data, resolve(values), seed);
            StateArchive reader(state.bytes());
            t->visitState(reader);
            reader.finish();
            const Evaluation ev = t->evaluate(false);
            const double variance = ev.metrics.at("grad_variance");
            if (plain == 0.0)
                plain = variance;
            std::printf("%-24s %16.6g %11.1fx\n", v.name, variance, plain / variance);
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_bbvi_variance: %s\n", e.what());
        return 1;
    }
}
