// The help of 'svi plot', which svi prints itself and svi-plot (which draws) prints too.

#include "app/plot_command.h"

namespace svi::cli::detail {

std::string plotHelp()
{
    return R"help(svi plot FOLDER... --out FILE.png|FILE.svg [options]
svi plot --table FILE.csv --out FILE.png|FILE.svg [options]
svi plot --matrix FILE.csv --out FILE.png [options]

Draws finished runs as the window's charts draw them: the ELBO (default) or a metric against
training seconds, steps or epochs, one colour per algorithm. FOLDER is what 'svi run --out' wrote (it
holds trace.csv, summary.json, run.json) or what 'svi compare --out' wrote (each of its runs is
drawn); several FOLDERs are drawn together. A run's trace.csv may be named instead of its folder.

Options
  --out FILE                the figure, FILE.png or FILE.svg (required); its folder is made
                            when missing, and nothing is written when an input is bad
  --metric KEY              a metric the traces hold (a column of trace.csv, a key of
                            summary.json's metrics; an unknown key lists those the traces
                            hold), or elbo (default)
  --x seconds|steps|epochs  the x axis: training seconds (evaluation excluded; default), steps
                            (minibatch updates) or epochs (items processed / N)
  --log-x                   a logarithmic x axis (points at x <= 0 are left out)
  --y-range LO,HI           the y axis's ends (either may be empty: ,0.5); points beyond are
                            clipped (an early transient need not flatten the rest)
  --size WxH                the chart's size in points (default 900x560, the window's export)
  --scale S                 PNG pixels per point (default 2: 900x560 gives 1800x1120 pixels);
                            an SVG is WxH whatever S
  --title TEXT              the chart's title (default: the metric's label, or ELBO; '' none)
  --table FILE.csv          draw a table instead of runs: its first column is x, each other
                            column a line named by its header (a script's summary, such as
                            the 002-fig3 script's), comma-separated with a header; an empty
                            cell is a missing point
  --y-title TEXT            the y axis's title (tables; default: none)
  --matrix FILE.csv         draw a matrix as a heatmap instead (PNG): a header of column
                            names, then a row name and the row's values on each line, as
                            'svi run' writes covariance_model.csv; blue < 0 < red on a scale
                            symmetric about zero, grey for an empty cell; --title as above
  --range R                 --matrix: the |value| at which the colours saturate (default: the
                            largest off-diagonal |value| of a square matrix, else the largest)
  --quiet                   no line saying what was written

The legend names each algorithm once by its label (as in 'svi list'); the repeats of one
algorithm (several seeds in a compare folder) are thin lines of its colour. Runs whose names
would still be alike get their folder in brackets. The axes end at the data; when the first
few percent of a run's x span would stretch the y axis to more than twice the rest's range,
those early points run off the axis, marked by an arrow and a note. The y axis is titled with
the metric's declared label and unit, e.g. "PSNR, running reconstruction (dB)", or its short
label where that does not fit; a metric with one value per run (PSNR of a headless run's final
pass) is a marker with its value written beside it. NaN and infinite values, and the point where
a run diverged or failed, are marked with red squares, as in the window. A run that does not
hold the metric is left out, with a note on stderr (the batch sampler has no ELBO).

It draws offscreen (QT_QPA_PLATFORM=offscreen unless that is set), so no display is needed.

Exit status: 0 when the figure was written, 2 for bad input (one line naming the path).

Example — the ELBO of every run of a compare folder against steps, log x:
  svi plot cmp --x steps --log-x --out cmp-elbo.svg
Example — held-out log-likelihood of two runs against training seconds:
  svi plot runA runB --metric heldout_loglik --out ll.png --size 640x400
)help";
}

} // namespace svi::cli::detail
