// Chart frame rate with several runs: every frame replaces every series (as the window's
// refresh timer does when all runs have new snapshots) and renders the chart.
// Usage: bench_charts [runs] [points per series] [frames]. Not a test: prints figures.

#include "ui/plot_view.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QPixmap>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    const int runs = argc > 1 ? std::atoi(argv[1]) : 5;
    const int points = argc > 2 ? std::atoi(argv[2]) : 100000;
    const int frames = argc > 3 ? std::atoi(argv[3]) : 30;
    svi::ui::PlotView plot;
    plot.resize(1000, 450);
    plot.show();
    std::vector<QVector<QPointF>> series(static_cast<std::size_t>(runs));
    for (int r = 0; r < runs; ++r)
        for (int i = 0; i < points; ++i)
            series[std::size_t(r)].push_back(QPointF(
                i * 0.01, 20 + r + 8 * (1 - std::exp(-i * 1e-4)) + 0.3 * std::sin(i * 0.37 + r)));
    QElapsedTimer t;
    double replaceMs = 0, renderMs = 0;
    for (int f = 0; f < frames; ++f) {
        t.start();
        plot.beginUpdate(); // as the window's refresh does
        for (int r = 0; r < runs; ++r) {
            series[std::size_t(r)].push_back(QPointF(points * 0.01 + f, 28 + r)); // one new point
            plot.setSeries(r + 1, QString("run %1").arg(r + 1), QColor::fromHsv(r * 60, 200, 200),
                           series[std::size_t(r)]);
        }
        plot.endUpdate();
        replaceMs += double(t.nsecsElapsed()) / 1e6;
        t.start();
        const QPixmap frame = plot.grab(); // lays out and paints the whole chart
        renderMs += double(t.nsecsElapsed()) / 1e6;
        if (frame.isNull())
            return 1;
    }
    const double per = (replaceMs + renderMs) / frames;
    std::printf("%d runs x %d points: replace %.1f ms + render %.1f ms per frame = %.1f frames/s "
                "(%d points drawn per series)\n",
                runs, points, replaceMs / frames, renderMs / frames, 1000.0 / per,
                plot.drawnPoints(1));
    return 0;
}
