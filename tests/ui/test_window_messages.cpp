// What the window says names what the window shows: a setting by the label of its form field
// (never its key or a command-line flag), a run folder's maker by its menu item, and a user of
// a ratings file by the id the file gives them, in the picker as in the exported lists.

#include "tests/ui/window_testing.h"
#include "ui/main_window.h"
#include "ui/param_form.h"
#include "ui/recommendations_view.h"
#include "ui/run_manager.h"

#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

using namespace svi;
using namespace svi::ui;
using namespace test_support;

namespace {

// ml100k_style/u.data: users 1, 2, 5 and 13 (rows 0 to 3).
QString ratingsFile()
{
    return QString(SVI_TEST_DATA_DIR) + "/ratings/ml100k_style/u.data";
}

} // namespace

class TestWindowMessages : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("SviWorkbenchTests");
        QCoreApplication::setApplicationName("test_window_messages");
    }
    void init() { QSettings().clear(); }

    // A ratings setting out of range, then two in range that together leave nothing to train
    // on: the form and Run's reason name the fields by their labels.
    void aSettingIsNamedByItsLabel()
    {
        auto w = std::make_unique<MainWindow>();
        QVERIFY(waitForData(*w));
        w->openPath(ratingsFile());
        QVERIFY(waitForData(*w));
        // A value out of range, in the settings form and in Run's reason.
        QVERIFY(w->settingsForm()->setText("validation_fraction", "1.5"));
        QCOMPARE(w->settingsForm()->errorText("validation_fraction"),
                 QString("Validation ratings = 1.5, but must be in [0, 0.99]"));
        QTRY_VERIFY2_WITH_TIMEOUT(w->runBlockedReason()->text().contains(
                                      "Validation ratings = 1.5, but must be in [0, 0.99]"),
                                  qPrintable(w->runBlockedReason()->text()), 20000);

        // Each in range, together leaving nothing to train on: the data cannot be built.
        QVERIFY(w->settingsForm()->setText("test_fraction", "0.8"));
        QVERIFY(w->settingsForm()->setText("validation_fraction", "0.3"));
        QTRY_VERIFY_WITH_TIMEOUT(!w->runBlockedReason()->text().contains("Preparing"), 20000);
        const QString reason = w->runBlockedReason()->text();
        QVERIFY2(reason.contains("Validation ratings = 0.3, but must be < 1 − Test ratings = 0.2"),
                 qPrintable(reason));
        QVERIFY2(!reason.contains("_fraction") && !reason.contains("--"), qPrintable(reason));
        QVERIFY2(!reason.contains(QChar(0x2060)), "a reference was left unrendered");
    }

    // A folder that holds no run: the message says which menu item writes one.
    void aFolderWithoutARunNamesTheMenuItem()
    {
        MainWindow w;
        QVERIFY(waitForData(w));
        QTemporaryDir empty;
        QSignalSpy errors(&w, &MainWindow::errorShown);
        w.openRunFolder(empty.path());
        QVERIFY(errors.wait(20000));
        const QString message = errors.last().at(0).toString();
        QVERIFY2(message.contains("Save Run") && !message.contains("svi ") &&
                     !message.contains("--"),
                 qPrintable(message));
    }

    // The user picker shows the file's ids (1, 2, 5, 13), steps through them and takes one
    // typed; the exported list starts with the same id.
    void theUserIsPickedByTheFilesId()
    {
        auto w = std::make_unique<MainWindow>();
        QVERIFY(waitForData(*w));
        w->openPath(ratingsFile());
        QVERIFY(waitForData(*w));
        RecommendationsView* rec = w->recommendationsView();
        auto* picker = rec->findChild<QSpinBox*>("recommendUser");
        QVERIFY(picker);
        QCOMPARE(picker->text(), QString("1"));
        picker->stepBy(2);
        QCOMPARE(picker->text(), QString("5"));
        QCOMPARE(rec->user(), std::int64_t(2));
        QCOMPARE(rec->userId(), std::int64_t(5));
        picker->stepBy(5); // past the last user: stays at the last
        QCOMPARE(picker->text(), QString("13"));
        // Typed: an id picks its user; a number that is no user's id is not taken.
        auto* edit = picker->findChild<QLineEdit*>();
        QVERIFY(edit);
        edit->selectAll();
        QTest::keyClicks(edit, "2");
        QTest::keyClick(edit, Qt::Key_Enter);
        QCOMPARE(rec->user(), std::int64_t(1));
        edit->selectAll();
        QTest::keyClicks(edit, "3");
        QTest::keyClick(edit, Qt::Key_Enter);
        QCOMPARE(rec->userId(), std::int64_t(2));
        // The line beside it counts the user's ratings and does not number the user again.
        auto* info = rec->findChild<QLabel*>("recommendUserInfo");
        QVERIFY(info);
        QVERIFY2(!info->text().contains("user"), qPrintable(info->text()));
        QVERIFY2(info->text().contains(QString::number(w->currentCounts()->train.rowNonZeros(1)) +
                                       " rating"),
                 qPrintable(info->text()));

        // One numbering: the exported list of the user shown names the same id.
        QVERIFY(runSteps(*w, 5) > 0);
        rec->setUser(3);
        QCOMPARE(picker->text(), QString("13"));
        const QList<QByteArray> lines = rec->csv().trimmed().split('\n');
        QVERIFY2(lines.size() > 1 && lines[1].startsWith("13,1,"), rec->csv().constData());
    }
};

QTEST_MAIN(TestWindowMessages)
#include "test_window_messages.moc"
