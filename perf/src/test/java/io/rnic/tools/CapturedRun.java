package io.rnic.tools;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A tool run in the test's JVM through its entry point, with what it printed: the in-memory tests read a tool's
 * output as its user would, and an exception that escaped shows in {@code err} (status 99) instead of ending the test
 * with a stack trace of the wrong thread.
 */
public record CapturedRun(int status, String out, String err)
{
    /** A tool's entry point: {@code PerftestTool.run} for a kind, {@code Rping::run}. */
    public interface Tool
    {
        int run(String[] args, PrintStream out, PrintStream err) throws IOException;
    }

    /**
     * A server and a client of one tool side by side on two threads, as two users would start them; returns {client,
     * server}, each within a minute.
     */
    public static CapturedRun[] serverAndClient(final Tool tool, final List<String> server, final List<String> client)
        throws Exception
    {
        return serverThenClient(tool, server, client, () -> true);
    }

    /**
     * {@link #serverAndClient}, the client started only once {@code serverReady} holds (within a minute): for a server
     * whose port rejects a connect at once until it listens (a driver's RDMA CM, as the kernel's).
     * <p>
     * A side still running after its minute fails the test with what both sides printed so far and where their
     * threads stand, rather than a bare timeout: a hang seen once on a loaded CI machine must say where it was.
     */
    public static CapturedRun[] serverThenClient(final Tool tool, final List<String> server, final List<String> client,
        final java.util.function.BooleanSupplier serverReady) throws Exception
    {
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        final Side serverSide = new Side("server");
        final Side clientSide = new Side("client");
        try
        {
            final Future<CapturedRun> serverRun = threads.submit(() -> serverSide.run(tool, server));
            final long deadlineNs = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (!serverReady.getAsBoolean() && !serverRun.isDone() && System.nanoTime() < deadlineNs)
            {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L); // a condition polled, not a sleep
            }
            final Future<CapturedRun> clientRun = threads.submit(() -> clientSide.run(tool, client));
            return new CapturedRun[]{
                await(clientRun, clientSide, serverSide), await(serverRun, serverSide, clientSide) };
        }
        finally
        {
            threads.shutdownNow();
        }
    }

    private static CapturedRun await(final Future<CapturedRun> run, final Side side, final Side other)
        throws Exception
    {
        try
        {
            return run.get(60, TimeUnit.SECONDS);
        }
        catch (final TimeoutException ex)
        {
            throw new AssertionError("the " + side.name + " did not finish within 60 s\n" + side.report() +
                other.report(), ex);
        }
    }

    /** One side's streams and thread, readable while it runs. */
    private static final class Side
    {
        private final String name;
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final ByteArrayOutputStream err = new ByteArrayOutputStream();
        private volatile Thread thread;
        private volatile CapturedRun result;

        Side(final String name)
        {
            this.name = name;
        }

        CapturedRun run(final Tool tool, final List<String> args)
        {
            thread = Thread.currentThread();
            result = of(tool, args, out, err);
            return result;
        }

        String report()
        {
            final StringBuilder text = new StringBuilder();
            final CapturedRun done = result;
            text.append("=== ").append(name).append(done != null ? " (ended, status " + done.status() + ")" :
                " (running)").append(", stdout:\n");
            text.append(out.toString(StandardCharsets.UTF_8)); // ByteArrayOutputStream is synchronized
            text.append("=== ").append(name).append(", stderr:\n");
            text.append(err.toString(StandardCharsets.UTF_8));
            final Thread t = thread;
            if (done == null && t != null)
            {
                text.append("=== ").append(name).append(", thread ").append(t.getName()).append(":\n");
                for (final StackTraceElement frame : t.getStackTrace())
                {
                    text.append("    at ").append(frame).append('\n');
                }
            }
            return text.toString();
        }
    }

    /** Both sides' output, client first, for a failure message: one side's failure is often the other's doing. */
    public static String both(final CapturedRun[] clientAndServer)
    {
        return "client (status " + clientAndServer[0].status() + "):\n" + clientAndServer[0].out() +
            clientAndServer[0].err() + "\nserver (status " + clientAndServer[1].status() + "):\n" +
            clientAndServer[1].out() + clientAndServer[1].err();
    }

    /** Runs the tool; an IOException is reported as RnicCli reports it (its message, status 2). */
    public static CapturedRun of(final Tool tool, final List<String> args)
    {
        return of(tool, args, new ByteArrayOutputStream(), new ByteArrayOutputStream());
    }

    private static CapturedRun of(final Tool tool, final List<String> args, final ByteArrayOutputStream out,
        final ByteArrayOutputStream err)
    {
        int status;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
            PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8))
        {
            try
            {
                status = tool.run(args.toArray(String[]::new), o, e);
            }
            catch (final IOException ex)
            {
                e.println(ex.getMessage());
                status = 2;
            }
            catch (final RuntimeException ex)
            {
                ex.printStackTrace(e);
                status = 99;
            }
        }
        return new CapturedRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
