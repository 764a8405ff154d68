#include "ui/elided_label.h"

#include <QPainter>
#include <QStyle>

namespace svi::ui {

ElidedLabel::ElidedLabel(QWidget* parent) : QFrame(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void ElidedLabel::setText(const QString& text)
{
    if (text == m_text)
        return;
    m_text = text;
    updateGeometry();
    updateToolTip();
    update();
}

QString ElidedLabel::shownLine() const
{
    const QString first = m_text.section('\n', 0, 0).simplified();
    // More lines follow (a list of kinds after an error's first line): say so.
    return m_text.trimmed().contains('\n') ? first + QStringLiteral(" …") : first;
}

bool ElidedLabel::isElided() const
{
    const QString line = shownLine();
    return line != m_text.trimmed() ||
           fontMetrics().horizontalAdvance(line) > contentsRect().width();
}

QSize ElidedLabel::sizeHint() const
{
    const QMargins m = contentsMargins();
    return {fontMetrics().horizontalAdvance(shownLine()) + m.left() + m.right(),
            fontMetrics().height() + m.top() + m.bottom()};
}

QSize ElidedLabel::minimumSizeHint() const
{
    const QMargins m = contentsMargins();
    return {fontMetrics().horizontalAdvance(QStringLiteral("xxxx…")) + m.left() + m.right(),
            fontMetrics().height() + m.top() + m.bottom()};
}

void ElidedLabel::paintEvent(QPaintEvent* event)
{
    QFrame::paintEvent(event);
    QPainter p(this);
    const QRect r = contentsRect();
    const QString shown = fontMetrics().elidedText(shownLine(), Qt::ElideRight, r.width());
    style()->drawItemText(&p, r, int(Qt::AlignLeading | Qt::AlignVCenter), palette(), isEnabled(),
                          shown, foregroundRole());
}

void ElidedLabel::resizeEvent(QResizeEvent* event)
{
    QFrame::resizeEvent(event);
    updateToolTip();
}

void ElidedLabel::updateToolTip()
{
    setToolTip(isElided() ? m_text : QString());
}

} // namespace svi::ui
