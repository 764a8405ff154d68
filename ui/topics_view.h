#pragma once
// The topics of a topic-model fit as a table: one row per topic in use, by decreasing weight,
// with its share of the corpus and its most probable words. Refreshed live from the selected
// run's preview; hovering a row lists its words with their probabilities. GUI thread only.

#include "core/run/trainer.h"

#include <QTableView>
#include <vector>

class QStandardItemModel;

namespace svi::ui {

class TopicsView : public QTableView
{
    Q_OBJECT
public:
    explicit TopicsView(QWidget* parent = nullptr);

    // Shows `topics` (in the order given) with `words` top words each.
    void setTopics(const std::vector<TopicSummary>& topics, int words = 10);
    void clear();

    int topicCount() const;
    // The text of row `row`'s words column ("space separated"), for tests.
    QString wordsAt(int row) const;
    // Topic number, weight and top words with probabilities, one row per topic (for export).
    QByteArray csv() const;

private:
    QStandardItemModel* m_model = nullptr;
    std::vector<TopicSummary> m_topics;
};

} // namespace svi::ui
