package io.distlock.shedlock.example;

/** Where {@link ReportJob} writes; a real store checks the token with {@code io.distlock.fencing}. */
public interface ReportStore {

    /** Records a report written by {@code instance} under the lock whose token is {@code fencingToken}. */
    void write(String instance, long fencingToken);
}
