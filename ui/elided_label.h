#pragma once
// ElidedLabel: one line of text that takes the room its layout gives it and elides what does not
// fit ("…"), the full text then in its tooltip. Its minimum width is a few characters, so a long
// text never pushes its neighbours aside (the status bar's message beside the runs' indicator).
// GUI thread only.

#include <QFrame>
#include <QString>

namespace svi::ui {

class ElidedLabel : public QFrame
{
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr);

    // The full text; only its first line is shown, with " …" when more follow (the whole text is
    // then in the tooltip).
    void setText(const QString& text);
    QString text() const { return m_text; }
    void clear() { setText({}); }
    // Whether the text shown is cut.
    bool isElided() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QString shownLine() const; // the first line, whitespace simplified, " …" if more follow
    void updateToolTip();

    QString m_text;
};

} // namespace svi::ui
