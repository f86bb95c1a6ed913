package io.distlock.integration.example;

import io.distlock.Lease;
import io.distlock.integration.DistlockLockRegistry;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;

public class ReportLeader extends AbstractCandidate {
    private final DistlockLockRegistry registry;
    private final ReportStore reports;

    public ReportLeader(DistlockLockRegistry registry, ReportStore reports) {
        super(null, "report-writer");
        this.registry = registry;
        this.reports = reports;
    }

    @Override
    public void onGranted(Context context) {
        // the lease behind this leadership: its fencing token goes with every write of this leader,
        // so the store refuses a former leader that still writes after a pause
        Lease leadership = registry.lease(getRole()).orElseThrow();
        reports.write(getId(), leadership.fencingToken().getAsLong());
    }

    @Override
    public void onRevoked(Context context) {}
}
