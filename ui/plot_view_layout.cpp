// PlotView's text and what it draws over the chart: the text size and the titles' forms fitted
// to the chart's size, the legend, the marks over the plot (lone points with their values,
// arrows and a note for values beyond the y axis), and export.

#include "core/io/data_error.h"
#include "core/io/run_files.h"
#include "ui/axis_ticks.h"
#include "ui/plot_view.h"
#include "ui/plot_view_impl.h"

#include <QBuffer>
#include <QFileInfo>
#include <QGraphicsEllipseItem>
#include <QGraphicsLayout>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QTextDocument>
#include <algorithm>
#include <cmath>

namespace svi::ui {

namespace {

// The largest text, in points. Below it the text grows with the chart (its width / 44 or its
// height / 24, whichever is less): a 320 × 200 chart starts at 7 pt, one of 400 × 216 or more
// at the full size.
constexpr double kMaxTextPt = 9.0;

// "(nats, ×10⁶)" for a title "… (nats)", "(×10⁶)" appended otherwise.
QString withSuffix(const QString& text, const QString& suffix)
{
    if (suffix.isEmpty() || text.isEmpty())
        return text;
    if (text.endsWith(')'))
        return text.left(text.size() - 1) + ", " + suffix + ")";
    return text + " (" + suffix + ")";
}

// `text` broken at the space nearest its middle; itself when it has none.
QString twoLines(const QString& text)
{
    int best = -1;
    for (int i = 0; i < text.size(); ++i)
        if (text[i] == ' ' &&
            (best < 0 || std::abs(i - text.size() / 2) < std::abs(best - text.size() / 2)))
            best = i;
    return best < 0 ? text : text.left(best) + '\n' + text.mid(best + 1);
}

// A form (lines joined by '\n') as the HTML Qt Charts draws titles from.
QString toHtml(const QString& form)
{
    QStringList lines = form.split('\n');
    for (QString& l : lines)
        l = l.toHtmlEscaped();
    return lines.join("<br>");
}

// The box Qt Charts measures a title in (a QGraphicsTextItem of half a point's margin).
QSizeF htmlSize(const QFont& font, const QString& html)
{
    QTextDocument doc;
    doc.setDocumentMargin(0.5);
    doc.setDefaultFont(font);
    doc.setHtml(html);
    return doc.size();
}

void relayout(QChart* chart)
{
    chart->layout()->invalidate();
    chart->layout()->activate();
}

// Whether Qt Charts cut any text it draws ("Held-o...").
bool anyCut(const QGraphicsItem* root)
{
    for (const QGraphicsItem* item : root->childItems()) {
        if (!item->isVisible())
            continue;
        if (const auto* t = dynamic_cast<const QGraphicsTextItem*>(item))
            if (t->toPlainText().endsWith("..."))
                return true;
        if (anyCut(item))
            return true;
    }
    return false;
}

// A value written next to its marker or in a note: four significant digits ("31.37",
// "0.15", "6999"), in exponent form only for very large or small numbers ("-7.04e6").
QString valueText(double v)
{
    const double a = std::abs(v);
    if (a != 0 && (a >= 1e5 || a < 1e-3)) {
        QString s = QString::number(v, 'g', 3);
        s.replace("e+0", "e").replace("e+", "e").replace("e-0", "e-");
        return s;
    }
    return a >= 1000 ? QString::number(v, 'f', 0) : QString::number(v, 'g', 4);
}

QColor textColour()
{
    return QColor(60, 60, 60);
}

} // namespace

QStringList TitleForms::forms(bool wrapped) const
{
    QStringList out{full};
    if (!brief.isEmpty() && brief != full)
        out << brief;
    const QString lines = twoLines(out.back());
    if (wrapped && lines != out.back())
        out << lines;
    return out;
}

QString TitleForms::shown() const
{
    const QStringList f = forms();
    return f.value(std::clamp(chosen, 0, int(f.size()) - 1));
}

void PlotView::scheduleFit()
{
    if (!d->fitting)
        d->fitTimer->start();
}

QString PlotView::titleShown() const
{
    return d->title.shown();
}

QString PlotView::xTitleShown() const
{
    return d->xDrawn.shown();
}

QString PlotView::yTitleShown() const
{
    return d->yDrawn.shown();
}

void PlotView::setEmptyNote(const QString& text)
{
    if (d->emptyNote == text)
        return;
    d->emptyNote = text;
    if (m_batch == 0) // else endUpdate() lays the chart out again
        placeOverlays();
}

QString PlotView::emptyNoteShown() const
{
    const bool anyPoint = std::any_of(m_series.begin(), m_series.end(),
                                      [](const Series* s) { return !s->shown.isEmpty(); });
    return anyPoint ? QString() : d->emptyNote;
}

QString PlotView::offAxisNote() const
{
    QStringList notes;
    if (!std::isnan(d->offAbove))
        notes << QString::fromUtf8("▲ max %1 off the axis").arg(valueText(d->offAbove));
    if (!std::isnan(d->offBelow))
        notes << QString::fromUtf8("▼ min %1 off the axis").arg(valueText(d->offBelow));
    return notes.join('\n');
}

void PlotView::fitText()
{
    if (d->fitting)
        return;
    d->fitTimer->stop();
    d->fitting = true;
    QChart* chart = d->chart;
    const QSizeF size = chart->size();
    const double largest = std::max(kMinTextPt, std::min(kMaxTextPt, d->baseFont.pointSizeF()));
    const double grown = std::floor(2.0 * std::min(size.width() / 44.0, size.height() / 24.0)) / 2;
    double pt = std::clamp(grown, kMinTextPt, largest);

    // The forms drawn of each title: the x title says the scale and the power of ten of its
    // labels, the y title that of its labels.
    TitleForms& xForms = d->xDrawn;
    TitleForms& yForms = d->yDrawn;
    xForms = d->xTitle;
    yForms = d->yTitle;
    if (m_logX) {
        xForms.full = d->xTitle.full.isEmpty() ? QString() : d->xTitle.full + ", log scale";
        xForms.brief =
            d->xTitle.full.isEmpty()
                ? QString()
                : (d->xTitle.brief.isEmpty() ? d->xTitle.full : d->xTitle.brief) + ", log";
    }
    const QString xSuffix = exponentText(d->xExponent), ySuffix = exponentText(d->yExponent);
    xForms.full = withSuffix(xForms.full, xSuffix);
    xForms.brief = withSuffix(xForms.brief, xSuffix);
    yForms.full = withSuffix(yForms.full, ySuffix);
    yForms.brief = withSuffix(yForms.brief, ySuffix);
    TitleForms* titles[] = {&d->title, &xForms, &yForms};
    const auto apply = [&] {
        chart->setTitle(toHtml(d->title.shown()));
        d->xLinear->setTitleText(toHtml(xForms.shown()));
        d->xLog->setTitleText(toHtml(xForms.shown()));
        d->y->setTitleText(toHtml(yForms.shown()));
    };

    // Not laid out yet (a widget never shown): the full titles, fitted once it has a size.
    const bool sized = size.width() >= 50 && size.height() >= 50;
    for (TitleForms* t : titles)
        t->chosen = 0;
    if (!sized)
        apply();
    for (; sized; pt -= 0.5) {
        pt = std::max(pt, kMinTextPt);
        const bool last = pt <= kMinTextPt;
        d->textPt = pt;
        QFont text = d->baseFont;
        text.setPointSizeF(pt);
        QFont title = text;
        title.setPointSizeF(pt + 1.0);
        title.setBold(true);
        chart->setTitleFont(title);
        for (QAbstractAxis* a :
             {static_cast<QAbstractAxis*>(d->xLinear), static_cast<QAbstractAxis*>(d->xLog),
              static_cast<QAbstractAxis*>(d->y)}) {
            a->setTitleFont(text);
            a->setLabelsFont(text);
        }
        for (TitleForms* t : titles)
            t->chosen = 0;
        const bool legendFits = layOutLegend(size.width(), size.height(), last);
        apply();
        relayout(chart);
        applyTicks();
        relayout(chart);

        // Each title in its longest form that fits its room: the chart's width, the plot's
        // width (x) and height (y, turned). Two lines only at the smallest size.
        const QRectF plot = chart->plotArea();
        const QMargins m = chart->margins();
        const double rooms[] = {size.width() - m.left() - m.right() - 2.0, plot.width(),
                                plot.height()};
        const QFont fonts[] = {title, text, text};
        bool fits = legendFits;
        for (int i = 0; i < 3; ++i) {
            TitleForms& t = *titles[i];
            const QStringList forms = t.forms(last);
            const int longest = int(forms.size()) - 1;
            const auto fitsRoom = [&](int f) {
                return htmlSize(fonts[i], toHtml(forms[f])).width() <= rooms[i];
            };
            while (t.chosen < longest && !fitsRoom(t.chosen))
                ++t.chosen;
            fits = fits && fitsRoom(t.chosen);
        }
        apply();
        relayout(chart);
        applyTicks();
        relayout(chart);
        const QRectF after = chart->plotArea();
        fits = fits && !anyCut(chart) && after.height() >= 0.35 * size.height() &&
               after.width() >= 0.45 * size.width();
        if (fits || last)
            break;
    }
    d->fitting = false;
    placeOverlays();
}

bool PlotView::updateLegend()
{
    QList<Impl::LegendEntry> wanted;
    QStringList names;
    for (Series* s : m_series) {
        if (s->shown.isEmpty() && s->marks->count() == 0)
            continue; // nothing drawn, nothing to name
        const QString name = s->legendName();
        const qsizetype at = names.indexOf(name);
        if (at >= 0) {
            wanted[at].dot = wanted[at].dot && s->shown.size() <= 1;
            continue;
        }
        names << name;
        wanted.push_back({name, s->color, s->shown.size() <= 1});
    }
    const bool changed =
        names != d->legendNames || wanted.size() != d->legendWanted.size() ||
        !std::equal(wanted.begin(), wanted.end(), d->legendWanted.begin(),
                    [](const Impl::LegendEntry& a, const Impl::LegendEntry& b) {
                        return a.text == b.text && a.color == b.color && a.dot == b.dot;
                    });
    d->legendNames = names;
    d->legendWanted = wanted;
    return changed;
}

// Flows the legend's entries into centred rows under the chart, at the current text size, and
// makes room for them in the chart's bottom margin. False when they take more than a third of
// the height, or an entry is wider than the chart (at the smallest size, `last`, such an entry
// is shortened in the middle instead).
bool PlotView::layOutLegend(double width, double height, bool last)
{
    qDeleteAll(d->legend->childItems());
    d->legendEntries = d->legendWanted;
    QFont font = d->baseFont;
    font.setPointSizeF(d->textPt);
    const QFontMetricsF fm(font);
    const double line = fm.height(), sample = 1.8 * line, gap = 0.35 * line, space = 1.2 * line;
    const double room = width - 8.0;
    bool fits = true;
    // Rows of entries: each entry's width.
    QList<QList<int>> rows;
    QList<double> rowWidths;
    for (int i = 0; i < d->legendEntries.size(); ++i) {
        Impl::LegendEntry& e = d->legendEntries[i];
        double w = sample + gap + fm.horizontalAdvance(e.text);
        if (w > room) {
            if (last) {
                e.text = fm.elidedText(e.text, Qt::ElideMiddle, room - sample - gap);
                w = sample + gap + fm.horizontalAdvance(e.text);
            } else {
                fits = false;
            }
        }
        if (rows.isEmpty() || rowWidths.back() + space + w > room) {
            rows.push_back({i});
            rowWidths.push_back(w);
        } else {
            rows.back().push_back(i);
            rowWidths.back() += space + w;
        }
    }
    const double legendHeight = rows.isEmpty() ? 0.0 : rows.size() * line + 4.0;
    if (legendHeight > height / 3.0)
        fits = false;
    d->chart->setMargins(QMargins(4, 4, 4, 4 + int(std::ceil(legendHeight))));
    d->legend->setRect(0, 0, width, legendHeight);
    d->legend->setPos(0, height - 4.0 - legendHeight + 2.0);
    for (int r = 0; r < rows.size(); ++r) {
        double x = (width - rowWidths[r]) / 2.0;
        const double y = r * line;
        for (int i : rows[r]) {
            const Impl::LegendEntry& e = d->legendEntries[i];
            if (e.dot) {
                const double dot = 0.5 * line;
                auto* item = new QGraphicsEllipseItem(x + (sample - dot) / 2, y + (line - dot) / 2,
                                                      dot, dot, d->legend);
                item->setBrush(e.color);
                item->setPen(Qt::NoPen);
            } else {
                auto* item =
                    new QGraphicsLineItem(x, y + line / 2, x + sample, y + line / 2, d->legend);
                QPen pen(e.color);
                pen.setWidthF(2.0);
                item->setPen(pen);
            }
            auto* label = new QGraphicsSimpleTextItem(e.text, d->legend);
            label->setFont(font);
            label->setBrush(textColour());
            label->setPos(x + sample + gap, y);
            x += sample + gap + fm.horizontalAdvance(e.text) + space;
        }
    }
    return fits;
}

void PlotView::placeOverlays()
{
    qDeleteAll(d->overlay->childItems());
    const QRectF plot = d->chart->plotArea();
    if (!(plot.width() > 0 && plot.height() > 0))
        return;
    const double x0 = xMin(), x1 = xMax(), y0 = yMin(), y1 = yMax();
    const auto px = [&](double x) {
        const double t = m_logX ? std::log10(x / x0) / std::log10(x1 / x0) : (x - x0) / (x1 - x0);
        return plot.left() + t * plot.width();
    };
    const auto py = [&](double y) { return plot.bottom() - (y - y0) / (y1 - y0) * plot.height(); };
    QFont font = d->baseFont;
    font.setPointSizeF(d->textPt);
    const QFontMetricsF fm(font);
    const double line = fm.height();

    // Lone points: a marker, and its value beside it (left of it near the right edge; left out
    // where it would overlap another).
    QList<QRectF> taken;
    for (Series* s : m_series) {
        if (s->shown.size() != 1)
            continue;
        const QPointF p = s->shown.front();
        if (p.y() < y0 || p.y() > y1)
            continue;
        const QPointF at(px(p.x()), py(p.y()));
        const double r = std::max(3.5, 0.32 * line);
        auto* dot = new QGraphicsEllipseItem(at.x() - r, at.y() - r, 2 * r, 2 * r, d->overlay);
        dot->setBrush(s->color);
        dot->setPen(QPen(s->color.darker(140), 1.0));
        const QString text = valueText(p.y());
        const double w = fm.horizontalAdvance(text);
        QRectF box(at.x() + r + 3, at.y() - line / 2, w, line);
        if (box.right() > plot.right())
            box.moveRight(at.x() - r - 3);
        if (std::any_of(taken.begin(), taken.end(),
                        [&](const QRectF& t) { return t.intersects(box); }))
            continue;
        taken << box;
        auto* label = new QGraphicsSimpleTextItem(text, d->overlay);
        label->setFont(font);
        label->setBrush(s->color.darker(130));
        label->setPos(box.topLeft());
    }

    // Values beyond the y axis: an arrow at the edge where each series leaves it, and a note in
    // a corner with the extreme value, at the edge they leave by, right or left, where fewer
    // lines pass.
    const double a = std::max(4.0, 0.35 * line);
    for (const Impl::OffMark& m : d->offMarks) {
        if (!std::isfinite(m.x) || m.x < x0 || m.x > x1)
            continue;
        const double x = px(m.x);
        const double edge = m.below ? plot.bottom() : plot.top();
        const double tip = m.below ? edge - 1 : edge + 1, base = m.below ? tip - a : tip + a;
        auto* arrow = new QGraphicsPolygonItem(
            QPolygonF({QPointF(x - a * 0.6, base), QPointF(x + a * 0.6, base), QPointF(x, tip)}),
            d->overlay);
        arrow->setBrush(m.color);
        arrow->setPen(Qt::NoPen);
    }
    const auto crossings = [&](const QRectF& box) {
        int n = 0;
        for (Series* s : m_series)
            for (qsizetype i = 1; i < s->shown.size(); ++i) {
                const QLineF seg(QPointF(px(s->shown[i - 1].x()), py(s->shown[i - 1].y())),
                                 QPointF(px(s->shown[i].x()), py(s->shown[i].y())));
                // A segment crosses the box when an end is inside or it cuts an edge.
                bool hit = box.contains(seg.p1()) || box.contains(seg.p2());
                const QLineF edges[] = {{box.topLeft(), box.topRight()},
                                        {box.topRight(), box.bottomRight()},
                                        {box.bottomRight(), box.bottomLeft()},
                                        {box.bottomLeft(), box.topLeft()}};
                for (const QLineF& e : edges)
                    hit = hit || seg.intersects(e) == QLineF::BoundedIntersection;
                n += hit;
            }
        return n;
    };
    const QStringList notes = offAxisNote().split('\n', Qt::SkipEmptyParts);
    for (const QString& note : notes) {
        const bool above = note.startsWith(QString::fromUtf8("▲"));
        const double w = fm.horizontalAdvance(note);
        const double top = above ? plot.top() + a + 2 : plot.bottom() - a - 2 - line;
        QRectF box(plot.right() - w - 4, top, w, line);
        const QRectF left(plot.left() + 4, top, w, line);
        if (crossings(left.adjusted(-2, 0, 2, 0)) < crossings(box.adjusted(-2, 0, 2, 0)))
            box = left;
        auto* back = new QGraphicsRectItem(box.adjusted(-2, 0, 2, 0), d->overlay);
        back->setBrush(QColor(255, 255, 255, 220));
        back->setPen(Qt::NoPen);
        auto* label = new QGraphicsSimpleTextItem(note, d->overlay);
        label->setFont(font);
        label->setBrush(textColour());
        label->setPos(box.topLeft());
    }

    // Nothing to draw: the reason, wrapped and centred over the empty plot.
    if (const QString empty = emptyNoteShown(); !empty.isEmpty()) {
        auto* label = new QGraphicsTextItem(d->overlay);
        label->setFont(font);
        label->setDefaultTextColor(textColour());
        label->setTextWidth(std::max(40.0, plot.width() - 16));
        label->setHtml("<div align=\"center\">" + empty.toHtmlEscaped() + "</div>");
        label->setPos(plot.left() + 8, plot.center().y() - label->boundingRect().height() / 2);
    }
}

void PlotView::layOutAt(QSizeF size) const
{
    auto* self = const_cast<PlotView*>(this);
    d->chart->setGeometry(QRectF(QPointF(0, 0), size));
    self->fitText();
    self->applyTicks();
    relayout(d->chart);
    self->placeOverlays();
}

PlotView::Drawn PlotView::drawnAt(QSize size) const
{
    const QRectF before = d->chart->geometry();
    layOutAt(QSizeF(size));
    Drawn out;
    out.plotArea = d->chart->plotArea();
    out.title = titleShown();
    out.xTitle = xTitleShown();
    out.yTitle = yTitleShown();
    for (QGraphicsItem* item : d->chart->scene()->items()) {
        if (!item->isVisible() || !d->chart->isAncestorOf(item))
            continue;
        DrawnText t;
        if (const auto* text = dynamic_cast<const QGraphicsTextItem*>(item)) {
            t.text = text->toPlainText();
            t.font = text->font();
        } else if (const auto* simple = dynamic_cast<const QGraphicsSimpleTextItem*>(item)) {
            t.text = simple->text();
            t.font = simple->font();
        } else {
            continue;
        }
        if (t.text.isEmpty())
            continue;
        t.box = d->chart->mapRectFromScene(item->sceneBoundingRect());
        out.texts << t;
    }
    if (before.isValid())
        layOutAt(before.size());
    d->chart->setGeometry(before);
    return out;
}

void PlotView::save(const QString& path, QSize size, double pixelRatio) const
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != "png" && suffix != "svg")
        throw DataError("cannot write '" + path.toStdString() +
                        "': the chart can be saved as .png or .svg");
    // Lay the chart out at the export size, draw it, and put it back.
    const QRectF before = d->chart->geometry();
    layOutAt(QSizeF(size));
    const QRectF source(QPointF(0, 0), QSizeF(size));
    QByteArray bytes;
    if (suffix == "svg") {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(d->title.full);
        QPainter painter(&svg);
        d->chart->scene()->render(&painter, source, source);
    } else {
        QImage image(size * pixelRatio, QImage::Format_ARGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        d->chart->scene()->render(&painter, QRectF(image.rect()), source);
        painter.end();
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        image.save(&buffer, "PNG");
    }
    if (before.isValid())
        layOutAt(before.size());
    d->chart->setGeometry(before);
    writeFileAtomically(path, bytes);
}

} // namespace svi::ui
