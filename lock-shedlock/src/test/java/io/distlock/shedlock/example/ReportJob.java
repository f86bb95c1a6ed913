package io.distlock.shedlock.example;

import io.distlock.shedlock.DistlockLockAssert;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

@Component
public class ReportJob {
    private final ReportStore reports;
    private final String instance;

    public ReportJob(ReportStore reports, @Value("${spring.application.name}") String instance) {
        this.reports = reports;
        this.instance = instance;
    }

    /**
     * Every instance fires it every two seconds; one of them runs it per tick. lockAtLeastFor keeps
     * the lock for a second even when the run is quicker, so an instance that fires a little later
     * finds it still taken.
     */
    @Scheduled(cron = "*/2 * * * * *")
    @SchedulerLock(name = "report", lockAtMostFor = "10s", lockAtLeastFor = "1s")
    public void run() {
        // the fencing token of this run's lock: the store refuses a write older than one it has seen
        reports.write(instance, DistlockLockAssert.currentToken());
    }
}
