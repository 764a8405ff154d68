#include "ui/param_form.h"

#include "ui/shown_messages.h"
#include "ui/whole_combo_box.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace svi::ui {

namespace {

QString tooltipFor(const ParamSpec& s)
{
    return QString("<b>%1</b> (%2)<br>%3<br>accepts %4; default %5")
        .arg(QString::fromStdString(s.label).toHtmlEscaped(), QString::fromStdString(s.key),
             QString::fromStdString(s.help).toHtmlEscaped(),
             QString::fromStdString(rangeText(s)).toHtmlEscaped(),
             QString::fromStdString(defaultText(s)).toHtmlEscaped());
}

} // namespace

ParamForm::ParamForm(QWidget* parent) : QWidget(parent)
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_layout = new QFormLayout;
    m_layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    outer->addLayout(m_layout);
    auto* restore = new QPushButton(tr("Restore defaults"));
    restore->setObjectName("restoreDefaults");
    restore->setToolTip(tr("Put every field of this form back to its declared default"));
    connect(restore, &QPushButton::clicked, this, &ParamForm::restoreDefaults);
    outer->addWidget(restore, 0, Qt::AlignRight);
    // Marked fields: a red frame and a pale red fill, the reason in red below.
    setStyleSheet("QLineEdit[invalid=\"true\"] { border: 1px solid #c0392b; background: #fdecea; }"
                  "QLabel[role=\"error\"] { color: #c0392b; }");
}

ParamForm::Field* ParamForm::find(const std::string& key)
{
    for (Field& f : m_fields)
        if (f.spec.key == key)
            return &f;
    return nullptr;
}

const ParamForm::Field* ParamForm::find(const std::string& key) const
{
    return const_cast<ParamForm*>(this)->find(key);
}

void ParamForm::setSpecs(std::vector<ParamSpec> specs, const std::set<std::string>& hidden)
{
    // Keep the text of fields that survive.
    std::map<std::string, QString> kept;
    for (const Field& f : m_fields)
        kept[f.spec.key] = text(f.spec.key);
    while (m_layout->rowCount() > 0)
        m_layout->removeRow(0);
    m_fields.clear();
    m_specs = std::move(specs);
    m_hidden = hidden;
    m_fields.reserve(m_specs.size());
    for (const ParamSpec& spec : m_specs) {
        if (hidden.count(spec.key))
            continue;
        m_fields.push_back(Field{spec, nullptr, nullptr, nullptr, std::nullopt, {}});
        Field& f = m_fields.back();
        const QString key = QString::fromStdString(spec.key);
        QWidget* editor = nullptr;
        switch (spec.type) {
        case ParamType::Int:
        case ParamType::Real:
        case ParamType::Text:
        case ParamType::Names: {
            auto* line = new QLineEdit;
            if (spec.type == ParamType::Int || spec.type == ParamType::Real)
                line->setInputMethodHints(Qt::ImhFormattedNumbersOnly);
            line->setPlaceholderText(QString::fromStdString(defaultText(spec)));
            connect(line, &QLineEdit::textEdited, this, [this, key](const QString& t) {
                if (Field* g = find(key.toStdString()))
                    onEdited(*g, t);
            });
            editor = line;
            break;
        }
        case ParamType::Choice: {
            auto* combo = new WholeComboBox; // its longest choice shows
            for (const auto& c : spec.choices)
                combo->addItem(QString::fromStdString(c));
            connect(combo, &QComboBox::currentTextChanged, this, [this, key](const QString& t) {
                if (Field* g = find(key.toStdString()))
                    onEdited(*g, t);
            });
            editor = combo;
            break;
        }
        case ParamType::Bool: {
            auto* check = new QCheckBox;
            connect(check, &QCheckBox::toggled, this, [this, key](bool on) {
                if (Field* g = find(key.toStdString()))
                    onEdited(*g, on ? "true" : "false");
            });
            editor = check;
            break;
        }
        }
        editor->setObjectName(key);
        editor->setToolTip(tooltipFor(spec));
        f.editor = editor;
        f.error = new QLabel;
        f.error->setProperty("role", "error");
        f.error->setWordWrap(true);
        f.error->setVisible(false);
        auto* cell = new QWidget;
        auto* v = new QVBoxLayout(cell);
        v->setContentsMargins(0, 0, 0, 0);
        v->setSpacing(1);
        v->addWidget(editor);
        v->addWidget(f.error);
        auto* label = new QLabel(QString::fromStdString(spec.label));
        label->setToolTip(tooltipFor(spec));
        label->setBuddy(editor);
        m_layout->addRow(label, cell);
        f.cell = cell;
        const auto it = kept.find(spec.key);
        setFieldText(f, it != kept.end() ? it->second : QString::fromStdString(defaultText(spec)));
    }
    updateApplicable();
    const bool valid = isValid();
    if (valid != m_valid) {
        m_valid = valid;
        emit validityChanged(valid);
    }
}

void ParamForm::setFieldText(Field& f, const QString& text)
{
    if (auto* line = qobject_cast<QLineEdit*>(f.editor)) {
        line->setText(text);
    } else if (auto* combo = qobject_cast<QComboBox*>(f.editor)) {
        const QSignalBlocker block(combo);
        const int i = combo->findText(text);
        if (i >= 0)
            combo->setCurrentIndex(i);
    } else if (auto* check = qobject_cast<QCheckBox*>(f.editor)) {
        const QSignalBlocker block(check);
        check->setChecked(text == "true" || text == "1");
    }
    onEdited(f, this->text(f.spec.key));
}

void ParamForm::onEdited(Field& f, const QString& text)
{
    auto parsed = parseParam(f.spec, text.trimmed().toStdString());
    if (auto* e = std::get_if<ParamError>(&parsed)) {
        f.value.reset();
        f.errorText = shownMessage(e->message, m_specs); // the field by its label
    } else {
        f.value = std::get<ParamValue>(parsed);
        f.errorText.clear();
    }
    f.error->setText(f.errorText);
    f.error->setVisible(!f.errorText.isEmpty());
    f.editor->setProperty("invalid", !f.errorText.isEmpty());
    f.editor->style()->unpolish(f.editor);
    f.editor->style()->polish(f.editor);
    if (f.spec.type == ParamType::Choice)
        updateApplicable();
    emit edited();
    const bool valid = isValid();
    if (valid != m_valid) {
        m_valid = valid;
        emit validityChanged(valid);
    }
}

bool ParamForm::isValid() const
{
    for (const Field& f : m_fields)
        if (!f.value)
            return false;
    return true;
}

std::optional<ParamError> ParamForm::firstError() const
{
    for (const Field& f : m_fields)
        if (!f.value)
            return ParamError{f.spec.key, f.errorText.toStdString()};
    return std::nullopt;
}

ParamValues ParamForm::values() const
{
    ParamValues out = defaultValues(m_specs);
    for (const Field& f : m_fields)
        if (f.value)
            out[f.spec.key] = *f.value;
    return out;
}

void ParamForm::setValues(const ParamValues& values)
{
    for (Field& f : m_fields) {
        const auto it = values.find(f.spec.key);
        if (it != values.end())
            setFieldText(f, QString::fromStdString(formatParam(it->second)));
    }
}

bool ParamForm::setText(const std::string& key, const QString& text)
{
    Field* f = find(key);
    if (!f)
        return false;
    setFieldText(*f, text);
    return true;
}

QString ParamForm::text(const std::string& key) const
{
    const Field* f = find(key);
    if (!f)
        return {};
    if (auto* line = qobject_cast<QLineEdit*>(f->editor))
        return line->text();
    if (auto* combo = qobject_cast<QComboBox*>(f->editor))
        return combo->currentText();
    if (auto* check = qobject_cast<QCheckBox*>(f->editor))
        return check->isChecked() ? "true" : "false";
    return {};
}

QString ParamForm::errorText(const std::string& key) const
{
    const Field* f = find(key);
    return f ? f->errorText : QString();
}

bool ParamForm::applies(const std::string& key) const
{
    const Field* f = find(key);
    if (!f || f->spec.whenKey.empty())
        return f != nullptr;
    const Field* control = find(f->spec.whenKey);
    return !control || f->spec.appliesWhen(control->value ? formatParam(*control->value)
                                                          : defaultText(control->spec));
}

void ParamForm::updateApplicable()
{
    for (Field& f : m_fields) {
        if (f.spec.whenKey.empty() || !f.cell)
            continue;
        const bool on = applies(f.spec.key);
        m_layout->setRowVisible(f.cell, on);
        if (!on && !f.errorText.isEmpty())
            setFieldText(f, QString::fromStdString(defaultText(f.spec)));
    }
}

QWidget* ParamForm::editor(const std::string& key) const
{
    const Field* f = find(key);
    return f ? f->editor : nullptr;
}

void ParamForm::restoreDefaults()
{
    for (Field& f : m_fields)
        setFieldText(f, QString::fromStdString(defaultText(f.spec)));
}

} // namespace svi::ui
