#include "app/cli.h"

#include "app/cli_parts.h"
#include "app/plot_command.h"
#include "core/models/builtin.h"

#include <QCoreApplication>

namespace svi::cli {

namespace {

const char* kMainHelp = R"(svi — stochastic variational inference, headless

Usage:
  svi list [--json|--markdown]      models, algorithms and their parameters; --presets: the
                                    named sets of values --preset starts from; --samples:
                                    the data sets --sample opens
  svi info FILE [--json] [settings]
                                    what a data file holds (image, FCS, CSV/TSV, corpus,
                                    ratings, LIBSVM, graph) as its kind reads it with the
                                    settings given
                                    (e.g. --patch 6), or why it cannot be read
  svi run [FILE...] [options]       fit a model and write the results into --out
  svi compare [FILE...] [options]   several algorithms on the same data, split, budget and
                                    seeds: run's options, plus --algorithms a,b (or m/a,m2/b),
                                    --repeats R, --baselines, --force; writes one folder per
                                    run and results.csv, results.json, results.tex into --out
  svi bench [FILE] [options]        seconds per step, full-pass time and peak memory of each
                                    algorithm (run's options, plus --algorithms a,b and --json)
  svi split CORPUS... --out DIR     a corpus's document-completion split as LDA-C files
                                    (train.ldac, test_observed.ldac, test_heldout.ldac,
                                    vocab.txt), for scoring other tools on the same words;
                                    for ratings, train.tsv, test.tsv and validation.tsv; for
                                    labelled data, train.svm and test.svm; for a graph,
                                    nodes.tsv, train_edges.tsv and test_pairs.tsv
  svi plot FOLDER... --out FILE     the ELBO or a metric of finished runs (run or compare
                                    folders) against seconds, steps or epochs, as PNG or SVG,
                                    drawn as the window draws it: --metric KEY, --x, --log-x,
                                    --size WxH (svi help plot)
  svi help run                      all options of 'svi run'
  svi help plot                     all options of 'svi plot'
  svi --version                     the version, as "svi 0.1.0"
  svi man                           this manual as roff (installed as svi(1): man svi)

Without FILE, 'svi run' uses the embedded default image (512×512 grey); --sample NAME runs on
one of the small data sets of each kind embedded in svi (svi list --samples).

Example — inpaint the default image with 80 % of its pixels removed, for one minute:
  svi run --missing 0.8 --algorithm gibbs-ssvi --seconds 60 --out results
Example — CyTOF files, arcsinh(x/5), 5 % of the entries held out and scored:
  svi run a.fcs b.fcs --arcsinh 5 --heldout 0.05 --set K=100 --seconds 120 --out cytof
Example — HPF with 100 factors on MovieLens 100k by SVI, precision@20 against popularity:
  svi run ml-100k/u.data --model hpf --algorithm svi --set K=100 --seconds 60 --out hpf
Example — LDA with 100 topics on the 20 Newsgroups training set, headers stripped:
  svi run 20news-bydate.tar.gz --subset 20news-bydate-train --strip-headers --set K=100 \
      --seconds 60 --out news
Example — Bayesian logistic regression on a9a (LIBSVM train and test files) by the four
algorithms of paper 002, test NLL and error against the same split:
  svi compare a9a a9a.t --model glm --seconds 30 --out glm
Example — the edge partition model on a co-authorship network (paper 003): gamma SGVB by
AdaDelta with momentum, K = 50, 1,000 steps, test AUC on 20 % of the node pairs:
  svi run nips234_coauthor_adjacency.csv --model epm --set K=50 --steps 1000 --out epm
Example — gamma process factor analysis of CyTOF cells by Adam instead of AdaDelta, against
the empirical covariance and Ledoit–Wolf on the same test cells:
  svi compare *.fcs --model gpfa --split rows --set optimizer=adam --steps 3000 \
      --out gpfa
)";

const char* kRunHead = R"(svi run [FILE...] [options]

FILE is an image, one or more FCS files, a delimited table, a corpus, a ratings file, labelled
examples, a graph, a folder of one kind of these, or 'synthetic'; its kind is recognised by its
content, gzip'd or not (or named with --kind; without it, data a model does not take are read
as a kind it does when they can be). Without FILE: the embedded default image. The flags below
are generated from the data kinds' and the run's declarations; an algorithm's parameters are
set with --set KEY=VALUE (see svi list). Without --seconds, --steps or --wall-seconds a run has
60 training seconds, as in the window.

Run description
  --config run.json         start from a saved description (a run.json, version 1 or 2); the
                            flags given as well override it
  --kind K                  the data kind, when its content does not say it
  --model M                 model key (default: the data kind's; see svi list)
  --algorithm A             algorithm key (default: the model's, marked in svi list)
  --sample NAME             instead of FILE, one of the small data sets of each kind embedded
                            in svi (svi list --samples)
  --preset P                start from a named set of parameter values, such as a paper's
                            settings for one of its figures (svi list --presets); the flags
                            and --set given as well override it
  --set KEY=VALUE           a parameter of the algorithm, repeatable (e.g. --set K=256)
  --resume DIR              go on with the run in DIR from its checkpoint (written every
                            --checkpoint-every steps, and when SIGTERM or SIGINT stopped it) to
                            the budget of its run.json, or of --steps/--seconds given with it;
                            the trace goes on as if the run had never stopped
)";

const char* kRunTail = R"(
Output
  --out DIR                 where to write run.json, summary.json, trace.csv and the previews
                            (reconstruction.png, atoms.png, loadings.csv, topics.csv,
                            weights.csv, slice.csv, user_factors.tsv, item_factors.tsv,
                            recommendations.csv); trace.csv is written as the run goes, and
                            checkpoint.bin at each checkpoint (default: results). It must be
                            new, empty, or hold this run (--resume); anything else is refused
                            before the data are read, as is a folder another svi is writing
  --force                   replace the run or comparison an earlier svi left in --out (a
                            folder that holds other files is never cleared)
  --quiet                   no progress line

Interrupts: the first Ctrl-C (or SIGTERM) ends the run at its next step with a checkpoint and
the final evaluation; a second skips the final evaluation. A run that fails before it starts
leaves no folder behind.

Exit status: 0 when the run ended normally (budget reached or interrupted), 2 for bad input
(with a one-line reason), 3 when the run failed or diverged.
)";

std::string runHelp()
{
    return std::string(kRunHead) + runFlagsHelp() + kRunTail;
}

// `text` as roff: backslashes escaped, a line's leading '.' or '\'' protected.
std::string roff(const std::string& text)
{
    std::string out;
    bool lineStart = true;
    for (const char c : text) {
        if (lineStart && (c == '.' || c == '\''))
            out += "\\&";
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
        lineStart = c == '\n';
    }
    return out;
}

// svi(1): the commands and the run's flags as `svi --help` and `svi help run` print them (the
// flags generated from the data kinds' and the run's declarations), then every model's
// algorithms with their parameters from the registry.
std::string manPage()
{
    std::string main = kMainHelp;
    main = main.substr(main.find('\n') + 1);
    std::string out = ".TH SVI 1 \"\" \"svi " SVI_VERSION "\" \"SVI Workbench\"\n"
                      ".SH NAME\nsvi \\- stochastic variational inference, headless\n"
                      ".SH SYNOPSIS\n.B svi\n.I command\n[\\fIoptions\\fR]\n"
                      ".SH DESCRIPTION\nFits the models of SVI Workbench to images, cytometry "
                      "tables, corpora, ratings, labelled data and networks without a window, on "
                      "one machine or on MPI ranks, and writes run folders the window reads.\n"
                      ".SH COMMANDS\n.nf\n" +
                      roff(main) + ".fi\n.SH \"RUN OPTIONS\"\n.nf\n" + roff(runHelp()) +
                      ".fi\n.SH MODELS\nEach algorithm's parameters are set with "
                      "\\fB\\-\\-set\\fR \\fIKEY\\fR=\\fIVALUE\\fR.\n";
    std::string model;
    for (const AlgorithmEntry& e : builtinRegistry().entries()) {
        if (e.model != model)
            out += ".SS \"" + roff(e.model + " \u2014 " + e.modelLabel) + "\"\n";
        model = e.model;
        out += ".TP\n\\fB\\-\\-model " + roff(e.model) + " \\-\\-algorithm " + roff(e.algorithm) +
               "\\fR\n" + roff(e.label + ": " + e.help) + "\n.RS\n";
        for (const ParamSpec& p : e.params)
            out += ".TP\n\\fB" + roff(p.key) + "\\fR=\\fI" + roff(defaultText(p)) + "\\fR  " +
                   roff(rangeText(p)) + "\n" + roff(helpWithOffText(p)) + "\n";
        out += ".RE\n";
    }
    out += ".SH \"SEE ALSO\"\nThe window, \\fBsvi\\-workbench\\fR; the Python module "
           "\\fBsvi\\fR (\\fBimport svi\\fR, the same models from a notebook).\n";
    return out;
}

} // namespace

using namespace detail;

int main(int argc, char** argv, Communicator& world)
{
    setRanks(world);
    std::vector<std::string> args(argv + 1, argv + argc);
    // No command draws here ('svi plot' runs svi-plot): images are decoded by QImageReader,
    // which needs only QtGui's image plugins, not a display. A QCoreApplication finds them.
    const QCoreApplication app(argc, argv);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" ||
        (args[0] == "help" && args.size() == 1)) {
        std::fputs(kMainHelp, stdout);
        return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version") {
        std::printf("svi %s\n", SVI_VERSION); // the CMake project's version
        return 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    const auto helpOf = [](const std::string& c) {
        return c == "run" ? runHelp() : c == "plot" ? plotHelp() : std::string(kMainHelp);
    };
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            std::fputs(helpOf(command).c_str(), stdout);
            return 0;
        }
    return reportingErrors([&] {
        if (command == "help") {
            std::fputs(helpOf(args.size() == 1 ? args[0] : "").c_str(), stdout);
            return 0;
        }
        if (command == "list")
            return cmdList(args);
        if (command == "man") { // the manual page, as roff (installed as svi(1))
            std::fputs(manPage().c_str(), stdout);
            return 0;
        }
        if (command == "info")
            return cmdInfo(args);
        if (command == "run")
            return cmdRun(args);
        if (command == "bench")
            return cmdBench(args);
        if (command == "split")
            return cmdSplit(args);
        if (command == "compare")
            return cmdCompare(args);
        if (command == "plot")
            return cmdPlot(args);
        throw UsageError(
            "unknown command '" + command +
            "' (commands: list, info, run, compare, bench, split, plot; see svi --help)");
    });
}

} // namespace svi::cli
