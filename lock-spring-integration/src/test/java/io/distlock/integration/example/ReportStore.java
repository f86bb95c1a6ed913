package io.distlock.integration.example;

/** Where the leader writes; a real store checks the token with {@code io.distlock.fencing}. */
public interface ReportStore {

    /** A write by candidate {@code candidateId} under the leadership whose token is {@code fencingToken}. */
    void write(String candidateId, long fencingToken);
}
