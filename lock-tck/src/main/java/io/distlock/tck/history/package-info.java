/**
 * Recording and checking lock histories: {@link io.distlock.tck.history.HistoryRecorder} collects
 * acquisition, release, loss and write events from many threads (or, through their one-line text
 * form, from child processes), and {@link io.distlock.tck.history.HistoryChecker} verifies that no
 * two valid holders of a lock overlapped and that fencing tokens increased.
 */
package io.distlock.tck.history;
