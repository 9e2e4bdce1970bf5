// Runner: one background thread that runs the latest submitted job and drops stale results.
//
// Every submit() gets a new generation number and cancels the job before it (a cancelled job
// that has not started is skipped; a running one sees JobContext::cancelled() turn true and
// should return early). Results come back on the Runner's (GUI) thread through signals, and
// only the result of the newest generation is emitted: the event loop never waits for work.
#pragma once

#include <QObject>
#include <QString>
#include <QThread>
#include <QVariant>

#include <atomic>
#include <functional>
#include <memory>

#include "core/result.hpp"

namespace tilescope::gui {

struct JobContext {
    std::function<bool()> cancelled;                  // true once a newer job or cancel() came
    std::function<void(int done, int total)> progress;  // thread-safe; posts to the GUI thread
};
using Job = std::function<Result<QVariant>(const JobContext&)>;

class Runner : public QObject {
    Q_OBJECT
public:
    explicit Runner(const QString& name, QObject* parent = nullptr);
    ~Runner() override;
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;

    quint64 submit(Job job);
    void cancel();
    quint64 generation() const { return generation_; }
    bool busy() const { return busy_; }

signals:
    void finished(quint64 generation, const QVariant& result);
    void failed(quint64 generation, const QString& message);
    void progress(quint64 generation, int done, int total);
    void cancelled(quint64 generation);
    void busyChanged(bool busy);

private:
    void setBusy(bool busy);

    QThread thread_;
    QObject* context_ = nullptr;  // lives in thread_; jobs are posted to it
    quint64 generation_ = 0;
    std::shared_ptr<std::atomic<bool>> current_cancel_;
    bool busy_ = false;
};

}  // namespace tilescope::gui
