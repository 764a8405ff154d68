#pragma once
// WholeComboBox: a combo box never narrower than its longest item. QComboBox's own minimum is a
// few characters, so a layout short of room cuts its text ("Hierarchical Poisson factoriz");
// this one asks for its longest item's width, and the column it stands in (the setup dock) widens
// to it. For pickers whose items fit such a column: models, algorithms, kinds, a setting's
// choices. GUI thread only.

#include <QComboBox>

namespace svi::ui {

class WholeComboBox : public QComboBox
{
public:
    explicit WholeComboBox(QWidget* parent = nullptr) : QComboBox(parent)
    {
        setSizeAdjustPolicy(QComboBox::AdjustToContents); // the hint follows the items
    }
    QSize minimumSizeHint() const override { return sizeHint(); }
};

} // namespace svi::ui
