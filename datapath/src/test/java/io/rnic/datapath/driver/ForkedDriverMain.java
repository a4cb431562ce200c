package io.rnic.datapath.driver;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A driver in a process of its own, for {@link DriverDeathTest}: a {@link DriverFixture} (driver and peer on an
 * in-memory link) in the directory given, {@code READY} on standard output once clients may attach, then it serves
 * until its standard input closes, or until the test kills it.
 * <p>
 * Arguments: the directory, the client timeout in ms.
 */
public final class ForkedDriverMain
{
    public static final String READY = "READY";

    private ForkedDriverMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final DriverFixture fixture;
        try
        {
            fixture = new DriverFixture(Path.of(args[0]), TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[1])));
        }
        catch (final Throwable ex) // Agrona rethrows checked exceptions unchecked
        {
            ex.printStackTrace();
            System.exit(1); // the peer's engine thread would keep this JVM, and the test waiting for READY, alive
            return;
        }
        System.out.println(READY + " pid " + ProcessHandle.current().pid());
        System.out.flush();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (in.readLine() != null)
        {
            // nothing to do: it serves until killed
        }
        fixture.driver.close();
        fixture.peer.close();
    }
}
