#include "ui/topics_view.h"

#include "core/io/run_files.h"

#include <QHeaderView>
#include <QStandardItemModel>
#include <algorithm>

namespace svi::ui {

TopicsView::TopicsView(QWidget* parent) : QTableView(parent), m_model(new QStandardItemModel(this))
{
    m_model->setHorizontalHeaderLabels({tr("Topic"), tr("Weight"), tr("Top words")});
    setModel(m_model);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setAlternatingRowColors(true);
    setWordWrap(false);
    verticalHeader()->hide();
    horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(true);
}

void TopicsView::setTopics(const std::vector<TopicSummary>& topics, int words)
{
    m_topics = topics;
    // Rows are rewritten in place so that the scroll position and selection survive a refresh.
    m_model->setRowCount(int(topics.size()));
    for (int r = 0; r < int(topics.size()); ++r) {
        const TopicSummary& t = topics[std::size_t(r)];
        QStringList shown, tip;
        const int n = std::min<int>(words, int(t.words.size()));
        for (int i = 0; i < int(t.words.size()); ++i) {
            const QString w = QString::fromStdString(t.words[std::size_t(i)]);
            if (i < n)
                shown << w;
            const double p = i < int(t.probs.size()) ? t.probs[std::size_t(i)] : 0.0;
            tip << QString("%1  %2").arg(w, -16).arg(p, 0, 'f', 4);
        }
        const QString tooltip = tr("Topic %1, %2 % of the words\n\n%3")
                                    .arg(t.index + 1)
                                    .arg(100.0 * t.weight, 0, 'f', 2)
                                    .arg(tip.join('\n'));
        auto set = [&](int col, const QString& text, Qt::Alignment align) {
            QStandardItem* item = m_model->item(r, col);
            if (!item) {
                item = new QStandardItem;
                m_model->setItem(r, col, item);
            }
            item->setText(text);
            item->setToolTip(tooltip);
            item->setTextAlignment(align | Qt::AlignVCenter);
        };
        set(0, QString::number(t.index + 1), Qt::AlignRight);
        set(1, QString("%1 %").arg(100.0 * t.weight, 0, 'f', 1), Qt::AlignRight);
        set(2, shown.join(' '), Qt::AlignLeft);
    }
}

void TopicsView::clear()
{
    m_topics.clear();
    m_model->setRowCount(0);
}

int TopicsView::topicCount() const
{
    return m_model->rowCount();
}

QString TopicsView::wordsAt(int row) const
{
    const QStandardItem* item = m_model->item(row, 2);
    return item ? item->text() : QString();
}

QByteArray TopicsView::csv() const
{
    return topicsCsv(m_topics);
}

} // namespace svi::ui
