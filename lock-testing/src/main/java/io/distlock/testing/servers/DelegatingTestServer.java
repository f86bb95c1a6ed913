package io.distlock.testing.servers;

/** A {@link TestServer} that forwards the process controls to the server process it wraps. */
abstract class DelegatingTestServer implements TestServer {
    final TestServer delegate;

    DelegatingTestServer(TestServer delegate) {
        this.delegate = delegate;
    }

    @Override
    public String host() {
        return delegate.host();
    }

    @Override
    public int port() {
        return delegate.port();
    }

    @Override
    public long pid() {
        return delegate.pid();
    }

    @Override
    public boolean isRunning() {
        return delegate.isRunning();
    }

    @Override
    public void kill() {
        delegate.kill();
    }

    @Override
    public void pause() {
        delegate.pause();
    }

    @Override
    public void resume() {
        delegate.resume();
    }

    @Override
    public void restart(boolean keepData) {
        delegate.restart(keepData);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
