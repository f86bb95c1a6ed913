package io.distlock.compare;

/**
 * The two states a small virtual machine runs a request in. When a reply wakes a thread whose vCPU
 * has halted (nothing else to run), the hypervisor has to rouse that vCPU first: on a 2-vCPU VM a
 * raw {@code PING} then costs several times what it costs when every vCPU is busy and the reply
 * finds one awake. Which state a measurement gets depends on what else the machine runs at the
 * moment, so the comparison runs the latency and hand-off scenarios in both, each forced as far as
 * it can be, and detects the state each measurement actually ran in (see {@link Condition}).
 */
public enum MachineMode {
    /**
     * Nothing is added to the machine: where the other vCPUs have nothing to run, replies wake halted
     * vCPUs. Whether that happened is detected, not forced: on a machine busy with other work the
     * "idle" blocks run in the fast state.
     */
    IDLE,
    /**
     * A thread of the comparison spins on one core for the whole measurement, so that no vCPU the
     * client and the server share halts; each reply finds a vCPU awake. Where Linux allows it, the
     * spinner runs at the {@code SCHED_IDLE} policy, so it gives its core to any other thread at once
     * and the measured work keeps every core.
     */
    FAST;

    /** "idle" or "fast". */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
