// The per-view query runner (defect: refreshes piled up on Qt's global pool
// and froze the viewer): one query at a time per view, never on the global
// pool; a user's request interrupts the running query and drops its result;
// live refreshes coalesce and rest between runs.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <QThreadPool>

#include <atomic>

#include "async_query.hpp"

using namespace numlab_gui;

class query_runner_test : public QObject {
  Q_OBJECT

 private slots:
  void live_refreshes_coalesce_instead_of_piling_up() {
    query_runner runner(nullptr, 50);
    std::atomic<int> running{0}, most{0};
    QThread* worker = nullptr;
    std::vector<int> applied;
    const auto slow_query = [&](int value) {
      return [&, value](const interrupt_flag&) {
        most = std::max(most.load(), ++running);
        worker = QThread::currentThread();
        QThread::msleep(100);
        --running;
        return value;
      };
    };
    for (int i = 0; i < 10; ++i) {
      runner.refresh<int>(slow_query(i), [&](int v) { applied.push_back(v); }, [](const QString&) {});
    }
    QTRY_VERIFY_WITH_TIMEOUT(!runner.busy(), 10000);
    // The first ran at once; the nine that came while it ran collapsed into the last.
    QCOMPARE(runner.started(), 2);
    QCOMPARE(applied, (std::vector<int>{0, 9}));
    QCOMPARE(most.load(), 1);
    QCOMPARE(runner.most_running(), 1);
    QVERIFY(worker != QThread::currentThread());
    QCOMPARE(QThreadPool::globalInstance()->activeThreadCount(), 0);
  }

  void the_longest_apply_on_the_ui_thread_is_recorded() {
    query_runner runner(nullptr, 0);
    QCOMPARE(runner.longest_apply_ms(), qint64{0});
    const auto apply_for = [](int ms) {
      return [ms](int) {
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < ms) QThread::msleep(1);
      };
    };
    runner.submit<int>([](const interrupt_flag&) { return 1; }, apply_for(60), [](const QString&) {});
    QTRY_VERIFY_WITH_TIMEOUT(!runner.busy(), 10000);
    runner.submit<int>([](const interrupt_flag&) { return 2; }, apply_for(5), [](const QString&) {});
    QTRY_VERIFY_WITH_TIMEOUT(!runner.busy(), 10000);
    // The longest of the two, not the last.
    QVERIFY2(runner.longest_apply_ms() >= 60, qPrintable(QString::number(runner.longest_apply_ms())));
  }

  void a_user_request_interrupts_and_supersedes_the_running_query() {
    query_runner runner;
    std::atomic<bool> first_interrupted{false};
    std::vector<int> applied;
    QStringList errors;
    runner.submit<int>(
        [&](const interrupt_flag& interrupt) {
          // Stands for a long SQLite query: it polls the flag as the reader's progress handler does.
          QElapsedTimer clock;
          clock.start();
          while (!interrupt.load() && clock.elapsed() < 20000) QThread::msleep(1);
          first_interrupted = interrupt.load();
          return 1;
        },
        [&](int v) { applied.push_back(v); }, [&](const QString& e) { errors << e; });
    QTest::qWait(50);
    QElapsedTimer clock;
    clock.start();
    runner.submit<int>([](const interrupt_flag&) { return 2; }, [&](int v) { applied.push_back(v); },
                       [&](const QString& e) { errors << e; });
    QTRY_VERIFY_WITH_TIMEOUT(!runner.busy(), 10000);
    QVERIFY(first_interrupted.load());
    QVERIFY2(clock.elapsed() < 1000, qPrintable(QString("switch took %1 ms").arg(clock.elapsed())));
    QCOMPARE(applied, std::vector<int>{2});  // the superseded result is never shown
    QVERIFY(errors.isEmpty());
  }

  void busy_is_announced_and_errors_reach_fail() {
    query_runner runner;
    QSignalSpy busy(&runner, &query_runner::busy_changed);
    QString error;
    runner.submit<int>([](const interrupt_flag&) -> int { throw std::runtime_error("run.db: no such table"); },
                       [](int) {}, [&](const QString& e) { error = e; });
    QVERIFY(runner.busy());
    QTRY_VERIFY_WITH_TIMEOUT(!runner.busy(), 10000);
    QCOMPARE(error, QString("run.db: no such table"));
    QCOMPARE(busy.count(), 2);
    QCOMPARE(busy.at(0).at(0).toBool(), true);
    QCOMPARE(busy.at(1).at(0).toBool(), false);
  }
};

QTEST_GUILESS_MAIN(query_runner_test)
#include "query_runner_test.moc"
