#pragma once
// A recommender's output for one user at a time: the user picker, their top-n items (titles,
// predicted scores, and a mark where the item is one of the user's held-out test ratings)
// beside what they rated in training, highest first. The list is computed on demand from the
// run's fitted factors (one matrix-vector product over the items, a few milliseconds even for
// 27,000 items), so switching users needs nothing from the trainer. GUI thread only.

#include "core/data/count_data.h"
#include "core/run/trainer.h"

#include <QWidget>
#include <memory>

class QLabel;
class QSpinBox;
class QStandardItemModel;
class QTableView;

namespace svi::ui {

class UserIdBox;

class RecommendationsView : public QWidget
{
    Q_OBJECT
public:
    explicit RecommendationsView(QWidget* parent = nullptr);

    // The ratings (users × items) the factors were fitted to; resets the user to the first.
    void setData(CountDataPtr data);
    const CountDataPtr& data() const { return m_data; }
    // The latest factors of the shown run, or null to clear the recommendations.
    void setFactors(std::shared_ptr<const RatingFactors> factors);
    void setTitle(const QString& title);
    void clear();

    // Selects user row `u` (0-based row of the data). The picker shows the user by the id the
    // ratings file gives them (CountData::rowIds), as the exports do: userId().
    void setUser(std::int64_t u);
    std::int64_t user() const;
    std::int64_t userId() const;
    int count() const; // n, the length of the list

    // For tests and export: the titles listed (recommended, rated).
    QStringList recommendedTitles() const;
    QStringList ratedTitles() const;
    // How many of the listed recommendations are held-out test items of the user.
    int heldOutHits() const;
    // The user's list as CSV (recommendationsCsv).
    QByteArray csv() const;

private:
    void refresh();
    QString itemTitle(std::int32_t item) const;

    CountDataPtr m_data;
    std::shared_ptr<const RatingFactors> m_factors;
    QLabel* m_title = nullptr;
    UserIdBox* m_user = nullptr;
    QSpinBox* m_n = nullptr;
    QLabel* m_userInfo = nullptr;
    QTableView* m_recommendedView = nullptr;
    QTableView* m_ratedView = nullptr;
    QStandardItemModel* m_recommended = nullptr;
    QStandardItemModel* m_rated = nullptr;
    std::vector<std::int32_t> m_list;
};

} // namespace svi::ui
