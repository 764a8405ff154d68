#include "ui/topic_correlations_view.h"

#include "core/run/topic_correlations.h"
#include "ui/loadings_view.h" // divergingColor

#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>

namespace svi::ui {

namespace {

constexpr double kCorrelationsLeft = 34;   // row numbers
constexpr double kCorrelationsTop = 6;     // room for the top label of the colour bar
constexpr double kCorrelationsBottom = 22; // column numbers
constexpr double kCorrelationsRight = 62;  // colour bar and its labels

// r with two decimals and a true minus sign ("−0.41", "0.53"; signed: "+0.53").
QString formatR(double r, bool sign = false)
{
    if (!std::isfinite(r))
        return QObject::tr("undefined");
    QString s = QString::number(std::abs(r), 'f', 2);
    if (r < 0 && s != "0.00")
        return QString(u'\u2212') + s;
    return sign ? "+" + s : s;
}

// The first kWords top words of a topic, comma separated.
QString firstWords(const TopicSummary& t)
{
    QStringList w;
    for (std::size_t i = 0; i < t.words.size() && int(i) < TopicCorrelationsView::kWords; ++i)
        w << QString::fromStdString(t.words[i]);
    return w.join(", ");
}

// The colour scale: the largest finite off-diagonal |r| of `values` rounded up to a tenth,
// from 0.1 to 1 (the diagonal is 1 whatever the fit, so it does not set the scale).
double scaleOf(const Eigen::MatrixXd& values)
{
    double largest = 0.0;
    for (Eigen::Index i = 0; i < values.rows(); ++i)
        for (Eigen::Index j = 0; j < values.cols(); ++j)
            if (i != j && std::isfinite(values(i, j)))
                largest = std::max(largest, std::abs(values(i, j)));
    return std::clamp(std::ceil(10.0 * largest - 1e-9) / 10.0, 0.1, 1.0);
}

} // namespace

// ---------------------------------------------------------------------------------------------
// CorrelationHeatmap

CorrelationHeatmap::CorrelationHeatmap(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

void CorrelationHeatmap::setValues(const QStringList& labels, const QStringList& words,
                                   const Eigen::MatrixXd& values, double scale)
{
    m_labels = labels;
    m_words = words;
    m_values = values;
    m_scale = scale > 0 && std::isfinite(scale) ? scale : 1.0;
    update();
}

QRectF CorrelationHeatmap::grid(const QSizeF& size) const
{
    const double side =
        std::max(10.0, std::min(size.width() - kCorrelationsLeft - kCorrelationsRight,
                                size.height() - kCorrelationsTop - kCorrelationsBottom));
    return {kCorrelationsLeft, kCorrelationsTop, side, side};
}

QRectF CorrelationHeatmap::cellRect(int row, int column, const QSizeF& size) const
{
    const QRectF g = grid(size);
    const double cell = g.width() / std::max(1, topicCount());
    return {g.left() + column * cell, g.top() + row * cell, cell, cell};
}

bool CorrelationHeatmap::cellAt(const QPointF& pos, int* row, int* column) const
{
    const int n = topicCount();
    const QRectF g = grid(QWidget::size());
    if (n == 0 || !g.contains(pos))
        return false;
    const double cell = g.width() / n;
    *row = std::clamp(int((pos.y() - g.top()) / cell), 0, n - 1);
    *column = std::clamp(int((pos.x() - g.left()) / cell), 0, n - 1);
    return true;
}

QString CorrelationHeatmap::toolTip(int row, int column) const
{
    if (row < 0 || column < 0 || row >= topicCount() || column >= topicCount())
        return {};
    auto name = [this](int i) {
        return tr("topic %1 (%2)").arg(m_labels.value(i), m_words.value(i));
    };
    return tr("%1 \u2194 %2: r = %3").arg(name(row), name(column), formatR(m_values(row, column)));
}

void CorrelationHeatmap::mouseMoveEvent(QMouseEvent* event)
{
    int r = 0, c = 0;
    if (cellAt(event->position(), &r, &c))
        QToolTip::showText(event->globalPosition().toPoint(), toolTip(r, c), this);
    else
        QToolTip::hideText();
}

void CorrelationHeatmap::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paint(p, QWidget::size());
}

QImage CorrelationHeatmap::render() const
{
    const QSize s = QWidget::size().isEmpty() ? sizeHint() : QWidget::size();
    QImage img(s, QImage::Format_ARGB32);
    img.fill(palette().color(QPalette::Base));
    QPainter p(&img);
    paint(p, s);
    return img;
}

void CorrelationHeatmap::paint(QPainter& p, const QSizeF& size) const
{
    const int n = topicCount();
    p.setPen(palette().color(QPalette::Text));
    if (n == 0) {
        p.drawText(QRectF(QPointF(0, 0), size), Qt::AlignCenter | Qt::TextWordWrap,
                   tr("No topic in use has a correlation."));
        return;
    }
    const QRectF g = grid(size);
    const double cell = g.width() / n;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const double r = m_values(i, j);
            const QRectF rect(g.left() + j * cell, g.top() + i * cell, cell + 0.5, cell + 0.5);
            if (std::isnan(r)) {
                p.fillRect(rect, undefinedColor());
            } else if (i == j) {
                p.fillRect(rect, diagonalColor());
            } else {
                p.fillRect(rect, divergingColor(r / m_scale));
            }
        }
    // Thin separators while the cells are large enough for them to help.
    if (cell >= 8) {
        p.setPen(QPen(palette().color(QPalette::Base), 1));
        for (int k = 1; k < n; ++k) {
            p.drawLine(QPointF(g.left() + k * cell, g.top()),
                       QPointF(g.left() + k * cell, g.bottom()));
            p.drawLine(QPointF(g.left(), g.top() + k * cell),
                       QPointF(g.right(), g.top() + k * cell));
        }
    }
    p.setPen(QPen(palette().color(QPalette::Mid), 0));
    p.drawRect(g);

    // Topic numbers: every one when they fit, else every step-th.
    const QFontMetricsF fm(font());
    p.setPen(palette().color(QPalette::Text));
    double widest = 0;
    for (const QString& l : m_labels)
        widest = std::max(widest, fm.horizontalAdvance(l));
    const int rowStep = std::max(1, int(std::ceil(fm.height() / cell)));
    const int colStep = std::max(1, int(std::ceil((widest + 4) / cell)));
    for (int i = 0; i < n; i += rowStep) {
        const double mid = g.top() + (i + 0.5) * cell;
        p.drawText(QRectF(0, mid - fm.height() / 2, kCorrelationsLeft - 4, fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, m_labels.value(i));
    }
    for (int j = 0; j < n; j += colStep) {
        const double mid = g.left() + (j + 0.5) * cell;
        p.drawText(QRectF(mid - widest, g.bottom() + 2, 2 * widest, fm.height()),
                   Qt::AlignHCenter | Qt::AlignTop, m_labels.value(j));
    }

    // Colour bar: +scale at the top, −scale at the bottom.
    const QRectF bar(g.right() + 10, g.top(), 12, g.height());
    const int steps = 64;
    for (int s = 0; s < steps; ++s) {
        const double t = 1.0 - 2.0 * (s + 0.5) / steps;
        p.fillRect(QRectF(bar.left(), bar.top() + bar.height() * s / steps, bar.width(),
                          bar.height() / steps + 0.5),
                   divergingColor(t));
    }
    p.setPen(QPen(palette().color(QPalette::Mid), 0));
    p.drawRect(bar);
    p.setPen(palette().color(QPalette::Text));
    const double x = bar.right() + 3;
    p.drawText(QPointF(x, bar.top() + fm.ascent()), formatR(m_scale, true));
    p.drawText(QPointF(x, bar.center().y() + fm.ascent() / 2 - 1), "0");
    p.drawText(QPointF(x, bar.bottom()), formatR(-m_scale));
}

// ---------------------------------------------------------------------------------------------
// TopicCorrelationsView

TopicCorrelationsView::TopicCorrelationsView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_heatmap = new CorrelationHeatmap;
    m_heatmap->setObjectName("correlationsHeatmap");
    layout->addWidget(m_heatmap, 1);
    // Beside the heatmap, which takes the page's height: what it shows, then the strongest
    // pairs, in a column that scrolls when the page is short rather than being cut.
    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 6, 0);
    m_note = new QLabel;
    m_note->setObjectName("correlationsNote");
    m_note->setWordWrap(true);
    m_pairs = new QLabel;
    m_pairs->setObjectName("correlationsPairs");
    m_pairs->setTextFormat(Qt::RichText);
    m_pairs->setWordWrap(true);
    m_pairs->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    sideLayout->addWidget(m_note);
    sideLayout->addWidget(m_pairs);
    sideLayout->addStretch(1);
    auto* sideArea = new QScrollArea;
    sideArea->setWidget(side);
    sideArea->setWidgetResizable(true);
    sideArea->setFrameShape(QFrame::NoFrame);
    sideArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    sideArea->setMinimumWidth(220);
    sideArea->setMaximumWidth(300);
    layout->addWidget(sideArea);
    setVisible(false);
}

QString TopicCorrelationsView::note() const
{
    return m_note->text();
}

void TopicCorrelationsView::setCorrelations(const std::vector<TopicSummary>& topics,
                                            std::shared_ptr<const TopicCorrelations> correlations)
{
    m_correlations = std::move(correlations);
    m_shown.clear();
    if (!m_correlations) {
        m_heatmap->setValues({}, {}, Eigen::MatrixXd(), 1.0);
        m_note->clear();
        m_pairs->clear();
        m_pairsText.clear();
        setVisible(false);
        return;
    }
    const TopicCorrelations& c = *m_correlations;
    std::map<int, Eigen::Index> position; // topic number → row of c.matrix
    for (std::size_t i = 0; i < c.topics.size(); ++i)
        if (Eigen::Index(i) < c.matrix.rows() && c.matrix.rows() == c.matrix.cols())
            position.emplace(c.topics[i], Eigen::Index(i));
    std::vector<int> inUse; // the table's topics that have a correlation, in its order
    QStringList without;    // the numbers of the others, as shown
    for (const TopicSummary& t : topics) {
        if (position.count(t.index))
            inUse.push_back(t.index);
        else
            without << QString::number(t.index + 1);
    }
    m_shown.assign(inUse.begin(), inUse.begin() + std::min<std::ptrdiff_t>(
                                                      std::ptrdiff_t(inUse.size()), kMaxTopics));
    std::map<int, QString> firstWordsOf;
    for (const TopicSummary& t : topics)
        firstWordsOf.emplace(t.index, firstWords(t));
    const int n = int(m_shown.size());
    Eigen::MatrixXd values(n, n);
    QStringList labels, words;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j)
            values(i, j) =
                c.matrix(position[m_shown[std::size_t(i)]], position[m_shown[std::size_t(j)]]);
        labels << QString::number(m_shown[std::size_t(i)] + 1);
        words << firstWordsOf[m_shown[std::size_t(i)]];
    }
    m_heatmap->setValues(labels, words, values, scaleOf(values));

    QString note =
        inUse.empty() ? tr("No topic in use has a correlation of its own.")
        : int(inUse.size()) > n
            ? tr("Correlations of the %1 most used of the %2 topics in use, in the table's order")
                  .arg(n)
                  .arg(inUse.size())
        : n == 1 ? tr("Correlation of the one topic in use")
                 : tr("Correlations of the %1 topics in use, in the table's order").arg(n);
    if (!inUse.empty())
        note += tr(", under the fitted prior. Hover a cell for its value.");
    if (!without.isEmpty())
        note += ' ' + (without.size() == 1
                           ? tr("Topic %1 has no correlation of its own (a reference topic).")
                           : tr("Topics %1 have no correlation of their own."))
                          .arg(without.join(", "));
    m_note->setText(note);
    fillPairs(firstWordsOf, inUse);
    setVisible(true);
}

void TopicCorrelationsView::fillPairs(const std::map<int, QString>& words,
                                      const std::vector<int>& among)
{
    // (strongestPairs reads an empty `among` as every topic: none in use means no pairs.)
    const StrongestPairs pairs =
        among.empty() ? StrongestPairs{} : strongestPairs(*m_correlations, kPairs, among);
    QString html, text;
    if (among.size() > m_shown.size())
        html += tr("<p style='color:gray'>Pairs among all %1 topics in use</p>").arg(among.size());
    auto section = [&](const QString& heading, const std::vector<TopicPair>& list,
                       const QColor& color) {
        html += QString("<p style='margin-top:6px'><b>%1</b></p>").arg(heading.toHtmlEscaped());
        text += heading + '\n';
        if (list.empty()) {
            html += tr("<p style='color:gray'>none</p>");
            text += tr("none") + '\n';
            return;
        }
        html += "<table cellspacing='0' cellpadding='1'>";
        for (const TopicPair& p : list) {
            const QString a = QString::number(p.a + 1), b = QString::number(p.b + 1);
            html += QString("<tr><td align='right' style='color:%1'><b>%2</b>&nbsp;</td>"
                            "<td><b>%3</b> %4<br>\u2194 <b>%5</b> %6</td></tr>")
                        .arg(color.name(), formatR(p.r, true), a, words.at(p.a).toHtmlEscaped(), b,
                             words.at(p.b).toHtmlEscaped());
            text += tr("%1  topic %2 (%3) \u2194 topic %4 (%5)")
                        .arg(formatR(p.r, true), a, words.at(p.a), b, words.at(p.b)) +
                    '\n';
        }
        html += "</table>";
    };
    section(tr("Most positively correlated"), pairs.positive, divergingColor(1.0));
    section(tr("Most negatively correlated"), pairs.negative, divergingColor(-1.0));
    m_pairs->setText(html);
    m_pairsText = text;
}

} // namespace svi::ui
