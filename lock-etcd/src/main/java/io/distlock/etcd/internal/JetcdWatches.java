package io.distlock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;

/**
 * Delete watches as jetcd watchers, one gRPC stream each (jetcd 0.8 opens one per watcher): the
 * path for a client the provider did not build (it cannot reach that client's channel), and for
 * one whose shared stream keeps failing. A wait starts at the server's current revision, so its
 * {@code created} revision tells the caller whether a delete before it could have been missed,
 * exactly as for a watch on the shared stream. Internal.
 */
final class JetcdWatches implements DeleteWatches {
    private final Client client;

    JetcdWatches(Client client) {
        this.client = client;
    }

    @Override
    public Handle watchDeletes(ByteSequence key, long startRevision, Listener listener) {
        return watch(key, startRevision, false, listener);
    }

    @Override
    public Handle waitForDelete(ByteSequence key, long after, Listener listener) {
        return watch(key, 0, true, listener);
    }

    private Handle watch(ByteSequence key, long startRevision, boolean prevKv, Listener listener) {
        WatchOption.Builder opt =
                WatchOption.builder().withNoPut(true).withCreateNotify(true).withPrevKV(prevKv);
        if (startRevision > 0) {
            opt.withRevision(startRevision);
        }
        Watch.Watcher w = client.getWatchClient().watch(key, opt.build(), new Watch.Listener() {
            @Override
            public void onNext(WatchResponse response) {
                if (response.isCreatedNotify()) {
                    listener.created(response.getHeader().getRevision());
                }
                for (WatchEvent e : response.getEvents()) {
                    if (e.getEventType() == WatchEvent.EventType.DELETE) {
                        KeyValue prev = e.getPrevKV();
                        long marked = prevKv && prev != null
                                ? HolderMark.markedRevision(prev.getValue().getBytes(), prev.getCreateRevision())
                                : 0;
                        listener.deleted(e.getKeyValue().getModRevision(), marked);
                    }
                }
            }

            @Override
            public void onError(Throwable t) {
                listener.failed("watch failed: " + t);
            }

            @Override
            public void onCompleted() {
                listener.failed("watch ended");
            }
        });
        return w::close;
    }
}
