#include "app/cli.h"

#include "app/cli_parts.h"

namespace svi::cli {

namespace {

const char* kMainHelp = R"(svi — stochastic variational inference, headless

Usage:
  svi list [--json]                 models, algorithms and their parameters
  svi info FILE [--json] [--patch P]
                                    what a data file holds (image, FCS, CSV/TSV, corpus), or
                                    why it cannot be read
  svi run [FILE...] [options]       fit a model and write the results into --out
  svi bench [FILE] [options]        seconds per step, full-pass time and peak memory of each
                                    algorithm (run's options, plus --algorithms a,b and --json)
  svi split CORPUS... --out DIR     a corpus's document-completion split as LDA-C files
                                    (train.ldac, test_observed.ldac, test_heldout.ldac,
                                    vocab.txt), for scoring other tools on the same words;
                                    for ratings, train.tsv, test.tsv and validation.tsv
  svi help run                      all options of 'svi run'

Without FILE, 'svi run' uses the embedded default image (512×512 grey).

Example — inpaint the default image with 80 % of its pixels removed, for one minute:
  svi run --task inpaint --missing 0.8 --algorithm gibbs-ssvi --seconds 60 --out results
Example — CyTOF files, arcsinh(x/5), 5 % of the entries held out and scored:
  svi run a.fcs b.fcs --arcsinh 5 --heldout 0.05 --set K=100 --seconds 120 --out cytof
Example — HPF with 100 factors on MovieLens 100k by SVI, precision@20 against popularity:
  svi run ml-100k/u.data --model hpf --algorithm svi --set K=100 --seconds 60 --out hpf
Example — LDA with 100 topics on the 20 Newsgroups training set, headers stripped:
  svi run 20news-bydate.tar.gz --subset 20news-bydate-train --strip-headers --set K=100 \
      --seconds 60 --out news
)";

const char* kRunHelp = R"(svi run [FILE...] [options]

Data and task
  FILE                      image (PNG, JPEG, TIFF, PGM, BMP), one or more FCS files (rows
                            stacked, channels matched by name), one CSV/TSV table (.gz too),
                            'synthetic' (data drawn from the BPFA prior, paper 000 Sec. 5.1),
                            or a corpus: LDA-C (.ldac, or .dat with a vocabulary beside it),
                            UCI docword.*.txt(.gz), a folder or .tar(.gz) of text files,
                            or ratings: MovieLens u.data, ratings.dat, ratings.csv (or the
                            folder holding one); default: the embedded image
  --task T                  inpaint (images: remove pixels, optionally add noise), heldout
                            (tables: hold out entries or rows and score them) or completion
                            (corpora: score the second half of held-out documents) or
                            recommend (ratings: hold out 20 % of each user's ratings and rank
                            every unrated item); by data

Images (--task inpaint)
  --missing F               fraction of pixels removed, in [0, 1)          (default 0.8)
  --noise S                 σ of Gaussian noise added to kept pixels, 0–255 (default 0)

Tables (--task heldout)
  --channels A,B,…          channels to model, by channel ($PnN) or marker ($PnS) name
                            ("CD3" also finds a marker written "170Yb_CD3")
  --exclude A,B,…           model every channel but these (e.g. --exclude Time)
  --arcsinh C               y ← asinh(y / C) first; 0 = off (default: 5 for mass cytometry
                            FCS files, off otherwise; 150 is usual for flow)
  --no-standardise          keep the scale (default: every channel to mean 0, variance 1)
  --subsample N             keep N rows drawn at random (default: all)
  --heldout F               fraction held out (default 0.05 FCS, 0.1 text, 0.075 synthetic)
  --split entries|rows      hold out entries at random, or whole test rows (half of each
                            scored, the rest conditions its local inference)  (default entries)
  --transpose               swap rows and columns (genes as data points)
  --tile N                  repeat the rows until there are N (benchmarks at full size)
  --rows N --cols D --true-k K
                            size of 'synthetic' data (default 100000, 40, 80)
  --loading-var V           variance of its loadings φ_kd (default 1/D, the prior of eq. 5)

Corpora (--task completion)
  --heldout F               fraction of documents held out (default 0.1): half of each one's
                            words condition its topics, the other half are scored
  --max-documents N         keep N documents drawn at random (default: all)
  --vocab FILE              vocabulary of LDA-C / UCI counts (default: found beside them)
  --subset NAME             raw text: only files below a folder NAME (e.g. 20news-bydate-train)
  --strip-headers           raw text: drop e-mail/Usenet headers (the Subject is kept)
  --min-df N                raw text: words in at least N documents (default 2)
  --max-df F                raw text: words in at most a fraction F of documents (default 1)
  --vocab-cap N             raw text: keep the N words in most documents (default: all)
  --min-length N            raw text: words of at least N letters (default 2)
  --keep-stop-words         raw text: keep English stop words (default: removed)

Ratings (--task recommend)
  --heldout F               fraction of each user's ratings held out as test (default 0.2)
  --validation F            fraction of each user's ratings held out for validation (0.01)
  --binarize T              ratings ≥ T become 1, the rest are dropped (default 0: ratings
                            are counts, a 4-star rating is y = 4)
  --items FILE              item titles: u.item, movies.dat or movies.csv (default: beside)

Model
  --model M                 model key (default bpfa; lda for corpora; hpf for ratings; see
                            'svi list')
  --algorithm A             algorithm key (default: the model's first, e.g. gibbs-ssvi, svi)
  --set KEY=VALUE           any parameter of the algorithm, repeatable (e.g. --set K=256)

Budget and reproducibility
  --seconds S               training seconds (evaluation time is not counted)
  --steps N                 number of steps (minibatch updates)
  --seed N                  seed of the corruption and of the algorithm  (default 1)
  --threads N               OpenMP threads (default: all cores; results do not depend on it)
  --eval-every S            seconds of training between snapshots (default: budget / 40)
  --full-every S            also a full evaluation (PSNR of the whole reconstruction) every S
                            training seconds; otherwise only at the end
  --config run.json         re-run a saved configuration (flags given as well override it)

Output
  --out DIR                 where to write summary.json, trace.csv, run.json and images;
                            recommenders also user_factors.tsv, item_factors.tsv and
                            recommendations.csv (every user's top n)  (default: results)
  --quiet                   no progress line

Exit status: 0 when the run ended normally (budget reached or interrupted), 2 for bad input
(with a one-line reason), 3 when the run failed or diverged.
)";

} // namespace

using namespace detail;

int main(int argc, char** argv)
{
    // QGuiApplication-free: images are decoded by QImageReader, which needs only QtGui's
    // image plugins, not a display. A QCoreApplication is enough to find them.
    QCoreApplication app(argc, argv);
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" ||
        (args[0] == "help" && args.size() == 1)) {
        std::fputs(kMainHelp, stdout);
        return args.empty() ? 2 : 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            std::fputs(command == "run" ? kRunHelp : kMainHelp, stdout);
            return 0;
        }
    try {
        if (command == "help") {
            std::fputs(args.size() == 1 && args[0] == "run" ? kRunHelp : kMainHelp, stdout);
            return 0;
        }
        if (command == "list")
            return cmdList(args);
        if (command == "info")
            return cmdInfo(args);
        if (command == "run")
            return cmdRun(args);
        if (command == "bench")
            return cmdBench(args);
        if (command == "split")
            return cmdSplit(args);
        throw UsageError("unknown command '" + command +
                         "' (commands: list, info, run, bench, split; see svi --help)");
    } catch (const UsageError& e) {
        std::fprintf(stderr, "svi: error: %s\n", e.what());
        return 2;
    } catch (const DataError& e) {
        std::fprintf(stderr, "svi: error: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "svi: error: %s\n", e.what());
        return 3;
    }
}

} // namespace svi::cli
