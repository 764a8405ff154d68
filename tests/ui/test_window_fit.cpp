// Nothing the window writes is cut at its default size: with each kind of data loaded and one
// short run made, the text of every visible label, button, check box, combo box (its current
// text), group box title, tab and table header fits the room its widget gives it; the runs
// table shows every column without scrolling, each cell whole unless its tooltip holds the full
// text; and the status bar's message, elided when long, leaves the runs' indicator its room.

#include "tests/ui/window_testing.h"
#include "ui/elided_label.h"
#include "ui/main_window.h"
#include "ui/runs_table.h"

#include <QAbstractItemModel>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QGroupBox>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QStyleOption>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QtTest>
#include <memory>

using namespace svi;
using namespace svi::ui;
using namespace test_support;

namespace {

// Where a widget is, for a failure's message: its class, object name and those of its parents.
QString where(const QWidget* w)
{
    QStringList path;
    for (const QObject* o = w; o && path.size() < 4; o = o->parent())
        path.prepend(o->objectName().isEmpty() ? QString(o->metaObject()->className())
                                               : o->objectName());
    return path.join('/');
}

QString withoutMnemonic(QString text)
{
    text.replace("&&", "\x01");
    text.remove('&');
    text.replace("\x01", "&");
    return text;
}

// The width of a label's text as it draws it: rich text by its document, plain text line by
// line.
int labelTextWidth(const QLabel* label)
{
    const QString text = label->buddy() ? withoutMnemonic(label->text()) : label->text();
    const bool rich = label->textFormat() == Qt::RichText ||
                      (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(text));
    if (rich) {
        QTextDocument doc;
        doc.setDefaultFont(label->font());
        doc.setDocumentMargin(0);
        doc.setHtml(text);
        return int(std::ceil(doc.idealWidth()));
    }
    int width = 0;
    for (const QString& line : text.split('\n'))
        width = std::max(width, label->fontMetrics().horizontalAdvance(line));
    return width;
}

int labelRoom(const QLabel* label)
{
    int room = label->contentsRect().width() - 2 * label->margin();
    if (label->indent() > 0)
        room -= label->indent();
    else if (label->indent() < 0 && label->frameWidth() > 0)
        room -= label->fontMetrics().horizontalAdvance(QLatin1Char('x')) / 2;
    return room;
}

// The room a header section's text needs, as QHeaderView sizes a section to its contents (bold,
// in case the section is highlighted).
int headerNeed(const QHeaderView* header, int section)
{
    QStyleOptionHeader opt;
    opt.initFrom(header);
    opt.section = section;
    QFont bold = header->font();
    bold.setBold(true);
    opt.fontMetrics = QFontMetrics(bold);
    opt.text = header->model()->headerData(section, header->orientation()).toString();
    opt.orientation = header->orientation();
    return header->style()
        ->sizeFromContents(QStyle::CT_HeaderSection, &opt, QSize(), header)
        .width();
}

// Every text of `w` that does not fit, one line each.
QStringList cutTexts(const QWidget& window)
{
    QStringList cut;
    auto report = [&cut](const QWidget* w, const QString& text, int need, int room) {
        if (need > room)
            cut << QString("%1 '%2': needs %3 px, has %4").arg(where(w), text).arg(need).arg(room);
    };
    for (const QWidget* w : window.findChildren<QWidget*>()) {
        if (!w->isVisible() || w->width() <= 0)
            continue;
        if (const auto* label = qobject_cast<const QLabel*>(w)) {
            if (label->wordWrap() || label->text().isEmpty())
                continue;
            report(label, label->text(), labelTextWidth(label), labelRoom(label));
        } else if (const auto* elided = qobject_cast<const ElidedLabel*>(w)) {
            // Elided by design: the full text is in its tooltip whenever it is cut.
            if (elided->isElided() && elided->toolTip() != elided->text())
                cut << QString("%1 '%2': elided without its text as tooltip")
                           .arg(where(w), elided->text());
        } else if (const auto* button = qobject_cast<const QPushButton*>(w)) {
            if (button->text().isEmpty())
                continue;
            QStyleOptionButton opt;
            opt.initFrom(button);
            const QRect contents =
                button->style()->subElementRect(QStyle::SE_PushButtonContents, &opt, button);
            const int icon = button->icon().isNull() ? 0 : button->iconSize().width() + 4;
            const QString text = withoutMnemonic(button->text());
            report(button, text, button->fontMetrics().horizontalAdvance(text) + icon,
                   contents.width());
        } else if (const auto* check = qobject_cast<const QCheckBox*>(w)) {
            if (check->text().isEmpty())
                continue;
            QStyleOptionButton opt;
            opt.initFrom(check);
            opt.text = check->text();
            const QRect contents =
                check->style()->subElementRect(QStyle::SE_CheckBoxContents, &opt, check);
            const QString text = withoutMnemonic(check->text());
            report(check, text, check->fontMetrics().horizontalAdvance(text), contents.width());
        } else if (const auto* combo = qobject_cast<const QComboBox*>(w)) {
            if (combo->currentText().isEmpty())
                continue;
            QStyleOptionComboBox opt;
            opt.initFrom(combo);
            opt.editable = combo->isEditable();
            opt.frame = combo->hasFrame();
            opt.currentText = combo->currentText();
            opt.subControls = QStyle::SC_All;
            const QRect field = combo->style()->subControlRect(QStyle::CC_ComboBox, &opt,
                                                               QStyle::SC_ComboBoxEditField, combo);
            // The label is drawn 1 px in from each side of the field (QCommonStyle).
            report(combo, combo->currentText(),
                   combo->fontMetrics().horizontalAdvance(combo->currentText()), field.width() - 2);
        } else if (const auto* box = qobject_cast<const QGroupBox*>(w)) {
            if (box->title().isEmpty())
                continue;
            QStyleOptionGroupBox opt;
            opt.initFrom(box);
            opt.text = box->title();
            opt.subControls = QStyle::SC_GroupBoxLabel;
            const QRect title = box->style()->subControlRect(QStyle::CC_GroupBox, &opt,
                                                             QStyle::SC_GroupBoxLabel, box);
            report(box, box->title(), title.left() + title.width(), box->width());
        } else if (const auto* tabs = qobject_cast<const QTabBar*>(w)) {
            for (int i = 0; i < tabs->count(); ++i) {
                if (!tabs->isTabVisible(i))
                    continue;
                QStyleOptionTab opt;
                opt.initFrom(tabs);
                opt.rect = tabs->tabRect(i);
                opt.text = tabs->tabText(i);
                opt.shape = tabs->shape();
                const QRect text =
                    tabs->style()->subElementRect(QStyle::SE_TabBarTabText, &opt, tabs);
                const QString t = withoutMnemonic(tabs->tabText(i));
                report(tabs, t, tabs->fontMetrics().horizontalAdvance(t), text.width());
                if (!tabs->rect().contains(tabs->tabRect(i)))
                    cut << QString("%1 tab '%2': outside its bar").arg(where(tabs), t);
            }
        } else if (const auto* header = qobject_cast<const QHeaderView*>(w)) {
            if (header->orientation() != Qt::Horizontal || !header->model())
                continue;
            for (int s = 0; s < header->count(); ++s)
                if (!header->isSectionHidden(s) && header->sectionSize(s) > 0)
                    report(header, header->model()->headerData(s, Qt::Horizontal).toString(),
                           headerNeed(header, s), header->sectionSize(s));
        }
    }
    return cut;
}

// The runs table: every column in view (no horizontal scrolling), every cell whole unless its
// tooltip holds its full text.
QStringList runsTableCuts(const QTableView* view)
{
    QStringList cut;
    const QHeaderView* header = view->horizontalHeader();
    if (header->length() > view->viewport()->width()) {
        QStringList widths;
        for (int c = 0; c < header->count(); ++c)
            widths << QString("%1 %2")
                          .arg(view->model()->headerData(c, Qt::Horizontal).toString())
                          .arg(header->sectionSize(c));
        cut << QString("runs table: its columns take %1 px (%2), its view shows %3")
                   .arg(header->length())
                   .arg(widths.join(", "))
                   .arg(view->viewport()->width());
    }
    const QAbstractItemModel* model = view->model();
    const int margin = view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1;
    for (int r = 0; r < model->rowCount(); ++r)
        for (int c = 0; c < model->columnCount(); ++c) {
            const QModelIndex i = model->index(r, c);
            const QString text = i.data().toString();
            if (text.isEmpty() || view->isColumnHidden(c))
                continue;
            const int icon = i.data(Qt::DecorationRole).isValid()
                                 ? view->iconSize().width() > 0 ? view->iconSize().width() : 16
                                 : 0;
            const int need = view->fontMetrics().horizontalAdvance(text) + 2 * margin + icon;
            if (need > view->columnWidth(c) && !i.data(Qt::ToolTipRole).toString().contains(text))
                cut << QString("runs table cell (%1, %2) '%3': needs %4 px, has %5")
                           .arg(r)
                           .arg(c)
                           .arg(text)
                           .arg(need)
                           .arg(view->columnWidth(c));
        }
    return cut;
}

} // namespace

class TestWindowFit : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("SviWorkbenchTests");
        QCoreApplication::setApplicationName("test_window_fit");
        // A crop of the coins, so that the image's run (and its full pass) takes milliseconds.
        QVERIFY(m_dir.isValid());
        QVERIFY(QImage(QString(SVI_TEST_DATA_DIR) + "/coins.png")
                    .copy(150, 100, 36, 30)
                    .save(m_dir.filePath("coins-crop.png")));
    }
    void init() { QSettings().clear(); }

    void everyTextFits_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QStringList>("files");
        const QString data = SVI_TEST_DATA_DIR;
        QTest::newRow("image") << "image" << QStringList{m_dir.filePath("coins-crop.png")};
        QTest::newRow("corpus") << "corpus" << QStringList{data + "/text/news_sample.tar.gz"};
        QTest::newRow("ratings") << "ratings" << QStringList{data + "/ratings/ml100k_style/u.data"};
        QTest::newRow("graph") << "graph" << QStringList{data + "/graphs/karate_newman.gml"};
        QTest::newRow("fcs") << "table"
                             << QStringList{data + "/fcs/Data23_Panel3_base_NR4_Patient9.fcs",
                                            data + "/fcs/Data23_Panel3_base_R5_Patient15.fcs"};
        QTest::newRow("labelled") << "labelled" << QStringList{data + "/labelled/a9a_head200"};
    }

    // At the default size, with the data loaded and a short run made.
    void everyTextFits()
    {
        QFETCH(QString, kind);
        QFETCH(QStringList, files);
        auto w = std::make_unique<MainWindow>();
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        QVERIFY(waitForData(*w));
        w->openPaths(files);
        QVERIFY(waitForData(*w));
        QCOMPARE(w->dataKind(), kind);
        useSmallSettings(*w); // the image's patches are cut again
        QTRY_VERIFY_WITH_TIMEOUT(w->runAction()->isEnabled(), 20000);
        QVERIFY2(runSteps(*w, 3, "0.02") > 0, qPrintable(w->runBlockedReason()->text()));
        QTest::qWait(50); // the layouts settle after the last snapshot
        QCoreApplication::processEvents();

        QStringList cut = cutTexts(*w);
        cut << runsTableCuts(w->runsView());
        QVERIFY2(cut.isEmpty(), qPrintable("\n" + cut.join('\n')));
    }

    // A message longer than the status bar has room for (an error naming a long path) is elided
    // beside the runs' indicator, its full text in its tooltip.
    void longStatusMessageIsElided()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(waitForData(w));
        QTemporaryDir dir;
        const QString folder =
            dir.filePath(QString("a-folder-with-a-rather-long-name/").repeated(4));
        QVERIFY(QDir().mkpath(folder));
        QFile file(folder + "measurements-of-an-unknown-kind.bin");
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write("\x01\x02\x03 not data") > 0);
        file.close();
        QSignalSpy errors(&w, &MainWindow::errorShown);
        w.openPath(file.fileName());
        QVERIFY(errors.wait(20000));
        for (QMessageBox* box : w.findChildren<QMessageBox*>())
            box->close();
        QCoreApplication::processEvents();
        QStringList cut = cutTexts(w);
        QVERIFY2(cut.isEmpty(), qPrintable("\n" + cut.join('\n')));
        const auto* message = w.findChild<ElidedLabel*>("statusMessage");
        const auto* speed = w.findChild<QLabel*>("speedLabel");
        QVERIFY(message && speed && message->isVisible() && speed->isVisible());
        QVERIFY(message->text().contains("measurements-of-an-unknown-kind.bin"));
        QVERIFY(message->isElided());
        QCOMPARE(message->toolTip(), message->text());
        QVERIFY(message->geometry().right() < speed->geometry().left());
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestWindowFit)
#include "test_window_fit.moc"
