#pragma once
// PlotView's insides, shared by plot_view.cpp (series, ranges, ticks) and plot_view_layout.cpp
// (fonts, titles, legend, marks over the plot). Included by those two files only.

#include "ui/plot_view.h"

#include <QTimer>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <limits>
#include <vector>

class QGraphicsRectItem;

namespace svi::ui {

struct PlotView::Series
{
    QString name;
    QColor color;
    SeriesLook look;
    QVector<QPointF> raw;
    QVector<QPair<double, QString>> events;
    QLineSeries* line = nullptr;
    QScatterSeries* marks = nullptr;
    QVector<QString> markLabels; // one per mark point
    QVector<int> edgeMarks;      // marks with no finite value before them
    QVector<QPointF> shown;      // the thinned line as handed to the chart
    bool dirty = true;           // raw data or scale changed since `shown` was made

    QString legendName() const { return look.legendName.isEmpty() ? name : look.legendName; }
};

// One titled thing with its forms, longest first: as given, the short form, and (`wrapped`:
// where nothing else fits) the shorter of those on two lines. `chosen` is the form drawn.
struct TitleForms
{
    QString full, brief;
    int chosen = 0;
    QStringList forms(bool wrapped = true) const; // plain text; lines joined by '\n'
    QString shown() const;
};

struct PlotView::Impl
{
    QChart* chart = nullptr;
    QChartView* view = nullptr;
    // Linear axes are category axes with their labels on values: the ticks and their labels are
    // ours (round values, scaled by a power of ten), not Qt's running sums.
    QCategoryAxis* xLinear = nullptr;
    QLogValueAxis* xLog = nullptr;
    QCategoryAxis* y = nullptr;
    QLabel* readout = nullptr;
    QString readoutText;

    TitleForms title, xTitle, yTitle; // as given
    TitleForms xDrawn, yDrawn;        // with "log scale" and the labels' power of ten
    int xExponent = 0, yExponent = 0; // tick labels are value / 10^exponent
    double textPt = 9.0;              // the size of the text now drawn
    QFont baseFont;

    // The values beyond the y axis (NaN: none) and, per series, where its extreme one is.
    double offBelow = std::numeric_limits<double>::quiet_NaN();
    double offAbove = std::numeric_limits<double>::quiet_NaN();
    struct OffMark
    {
        QColor color;
        double x;
        bool below;
    };
    std::vector<OffMark> offMarks;
    QString emptyNote; // setEmptyNote

    // Drawn over the chart by us: the legend, and the marks and notes over the plot area.
    QGraphicsRectItem* legend = nullptr;
    QGraphicsRectItem* overlay = nullptr;
    struct LegendEntry
    {
        QString text;
        QColor color;
        bool dot = false; // only lone points: a dot, not a line
    };
    QList<LegendEntry> legendWanted;  // from the series drawn
    QList<LegendEntry> legendEntries; // as drawn (a text may be shortened in the middle)
    QStringList legendNames;          // as named

    QTimer* fitTimer = nullptr;
    bool fitting = false;

    QAbstractAxis* xAxis(bool log) const
    {
        return log ? static_cast<QAbstractAxis*>(xLog) : xLinear;
    }
};

} // namespace svi::ui
