#pragma once
// ParamForm: an editor for a list of ParamSpec, generated from the declarations (the registry's
// algorithm parameters, the task settings, the run budget). Numbers are typed into line edits
// and checked by the same parser as the command line, so an out-of-range value is kept on
// screen, marked, and explained inline ("minibatch = 0, but must be in [1, 1000000000]")
// rather than silently clamped. Choices are combo boxes, booleans check boxes; tooltips carry
// the help, the range and the default. GUI thread only.

#include "core/base/params.h"

#include <QString>
#include <QWidget>
#include <optional>
#include <set>
#include <string>
#include <vector>

class QFormLayout;
class QLabel;

namespace svi::ui {

class ParamForm : public QWidget
{
    Q_OBJECT
public:
    explicit ParamForm(QWidget* parent = nullptr);

    // Rebuilds the editors. Values of keys present before and after are kept (switching
    // algorithm keeps K); others start at their defaults. Keys in `hidden` get no editor and
    // keep their default (e.g. the patch size, which the task sets).
    void setSpecs(std::vector<ParamSpec> specs, const std::set<std::string>& hidden = {});
    const std::vector<ParamSpec>& specs() const { return m_specs; }

    bool isValid() const;
    // The first invalid field, in form order.
    std::optional<ParamError> firstError() const;
    // The current values (defaults for hidden keys). Meaningful when isValid().
    ParamValues values() const;
    // Sets editors from values (unknown keys are ignored).
    void setValues(const ParamValues& values);
    // Types `text` into the editor of `key` as a user would; false when there is no such editor.
    bool setText(const std::string& key, const QString& text);
    QString text(const std::string& key) const;
    QString errorText(const std::string& key) const; // empty when the field is valid
    QWidget* editor(const std::string& key) const;
    // Whether the field of `key` applies under the current choices (ParamSpec::whenKey): a
    // field that does not is hidden, its value kept.
    bool applies(const std::string& key) const;
    void restoreDefaults();

signals:
    void edited();
    void validityChanged(bool valid);

private:
    struct Field
    {
        ParamSpec spec;
        QWidget* editor = nullptr;
        QLabel* error = nullptr;
        QWidget* cell = nullptr; // the form row's field: editor and error
        std::optional<ParamValue> value;
        QString errorText;
    };
    void onEdited(Field& f, const QString& text);
    void setFieldText(Field& f, const QString& text);
    Field* find(const std::string& key);
    // Shows the rows that apply under the current choices and hides the others; a hidden field
    // holding an invalid value goes back to its default (it cannot be corrected while hidden).
    void updateApplicable();
    const Field* find(const std::string& key) const;

    QFormLayout* m_layout = nullptr;
    std::vector<ParamSpec> m_specs;
    std::set<std::string> m_hidden;
    std::vector<Field> m_fields;
    bool m_valid = true;
};

} // namespace svi::ui
