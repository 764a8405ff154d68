// The generated parameter form: editors by type, inline errors, defaults, kept values.

#include "ui/param_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QtTest>

using namespace svi;
using namespace svi::ui;

namespace {

std::vector<ParamSpec> specs()
{
    ParamSpec k{"K", "Features K", "number of features", ParamType::Int, 256, 1, 4096, {}, {}};
    ParamSpec kappa{
        "kappa", "Forgetting rate κ", "step-size decay", ParamType::Real, 0.75, 0.5, 1.0, {}, {}};
    ParamSpec init{"init", "Initialisation",    "how to start", ParamType::Choice, 0, 0,
                   0,      {"random", "gibbs"}, "gibbs"};
    ParamSpec flag{"fast", "Fast", "a switch", ParamType::Bool, 1, 0, 1, {}, {}};
    return {k, kappa, init, flag};
}

} // namespace

class TestParamForm : public QObject
{
    Q_OBJECT
private slots:
    void editorsFollowTheTypes();
    void outOfRangeIsMarkedAndExplained();
    void restoreDefaultsAndHiddenKeys();
    void switchingSpecsKeepsSharedValues();
    void fieldsOfAnotherChoiceAreHidden();
};

void TestParamForm::editorsFollowTheTypes()
{
    ParamForm form;
    form.setSpecs(specs());
    QVERIFY(qobject_cast<QLineEdit*>(form.editor("K")));
    QVERIFY(qobject_cast<QLineEdit*>(form.editor("kappa")));
    QVERIFY(qobject_cast<QComboBox*>(form.editor("init")));
    QVERIFY(qobject_cast<QCheckBox*>(form.editor("fast")));
    QVERIFY(form.editor("K")->toolTip().contains("number of features"));
    QVERIFY(form.editor("K")->toolTip().contains("[1, 4096]"));
    const ParamValues v = form.values();
    QCOMPARE(std::get<std::int64_t>(v.at("K")), std::int64_t(256));
    QCOMPARE(std::get<double>(v.at("kappa")), 0.75);
    QCOMPARE(std::get<std::string>(v.at("init")), std::string("gibbs"));
    QCOMPARE(std::get<bool>(v.at("fast")), true);
}

void TestParamForm::outOfRangeIsMarkedAndExplained()
{
    ParamForm form;
    form.setSpecs(specs());
    QSignalSpy validity(&form, &ParamForm::validityChanged);
    auto* kappa = qobject_cast<QLineEdit*>(form.editor("kappa"));
    kappa->selectAll();
    QTest::keyClicks(kappa, "1.5");
    QVERIFY(!form.isValid());
    QCOMPARE(validity.size(), 1);
    QCOMPARE(validity.last().at(0).toBool(), false);
    QVERIFY(kappa->property("invalid").toBool());
    // The field is named by its label, as the form shows it (not by its key or a flag).
    QCOMPARE(form.errorText("kappa"), QString("Forgetting rate κ = 1.5, but must be in [0.5, 1]"));
    QCOMPARE(form.firstError()->key, std::string("kappa"));
    // The value typed stays on screen: nothing is clamped behind the user's back.
    QCOMPARE(kappa->text(), QString("1.5"));
    form.setText("K", "12.5");
    QVERIFY(!form.errorText("K").isEmpty());
    form.setText("K", "12");
    form.setText("kappa", "0.6");
    QVERIFY(form.isValid());
    QCOMPARE(validity.last().at(0).toBool(), true);
    QCOMPARE(std::get<std::int64_t>(form.values().at("K")), std::int64_t(12));
}

void TestParamForm::restoreDefaultsAndHiddenKeys()
{
    ParamForm form;
    form.setSpecs(specs(), {"K"});
    QVERIFY(!form.editor("K"));
    QCOMPARE(std::get<std::int64_t>(form.values().at("K")), std::int64_t(256)); // the default
    form.setText("kappa", "0.9");
    qobject_cast<QComboBox*>(form.editor("init"))->setCurrentText("random");
    form.restoreDefaults();
    QCOMPARE(form.text("kappa"), QString("0.75"));
    QCOMPARE(form.text("init"), QString("gibbs"));
}

void TestParamForm::switchingSpecsKeepsSharedValues()
{
    ParamForm form;
    form.setSpecs(specs());
    form.setText("K", "64");
    form.setText("kappa", "2"); // invalid, and kept as typed
    std::vector<ParamSpec> other = {specs()[0], specs()[1]};
    form.setSpecs(other);
    QCOMPARE(form.text("K"), QString("64"));
    QVERIFY(!form.isValid());
    QVERIFY(!form.editor("init"));
    QVERIFY(!form.values().count("init"));
}

// The optimizer's declarations: AdaDelta's ρ shows only under adadelta, Adam's β1 only under
// adam; a hidden field keeps its value, and one left invalid goes back to its default.
void TestParamForm::fieldsOfAnotherChoiceAreHidden()
{
    const ParamSpec optimizer =
        choiceParam("optimizer", "Optimizer", "the rule", {"adadelta", "adam"}, "adadelta");
    const ParamSpec rho =
        onlyWhen(realParam("rho", "ρ", "adadelta's", 0.9, 0.0, 1.0), "optimizer", {"adadelta"});
    const ParamSpec beta =
        onlyWhen(realParam("beta1", "β1", "adam's", 0.9, 0.0, 0.9999), "optimizer", {"adam"});
    ParamForm form;
    form.setSpecs({optimizer, rho, beta});
    form.show();
    QVERIFY(form.applies("rho"));
    QVERIFY(!form.applies("beta1"));
    QVERIFY(form.editor("rho")->isVisible());
    QVERIFY(!form.editor("beta1")->isVisible());
    QVERIFY(form.setText("rho", "0.5"));
    QVERIFY(form.setText("rho", "2")); // out of range, then hidden by the switch below
    QVERIFY(!form.isValid());
    auto* combo = qobject_cast<QComboBox*>(form.editor("optimizer"));
    QVERIFY(combo);
    combo->setCurrentText("adam");
    QVERIFY(form.applies("beta1"));
    QVERIFY(!form.applies("rho"));
    QVERIFY(form.editor("beta1")->isVisible());
    QVERIFY(!form.editor("rho")->isVisible());
    QVERIFY(form.isValid()); // the hidden invalid ρ went back to its default
    const ParamValues v = form.values();
    QCOMPARE(std::get<double>(v.at("rho")), 0.9);
    QCOMPARE(std::get<double>(v.at("beta1")), 0.9);
    QCOMPARE(std::get<std::string>(v.at("optimizer")), std::string("adam"));
    // A valid value survives being hidden and shown again.
    QVERIFY(form.setText("beta1", "0.8"));
    combo->setCurrentText("adadelta");
    combo->setCurrentText("adam");
    QCOMPARE(std::get<double>(form.values().at("beta1")), 0.8);
}

QTEST_MAIN(TestParamForm)
#include "test_param_form.moc"
