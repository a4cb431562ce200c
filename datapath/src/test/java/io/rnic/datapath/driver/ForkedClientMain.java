package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A driver's client in a process of its own, for {@link ClientCrashTest}: it opens a context on the directory given,
 * makes an RC QP with a registered buffer of {@link #MEMORY_BYTES} and prints {@code QP <qpn> <address> <rkey>}; the
 * next line of its standard input is the peer's QPN, which it connects to at the address given, then it prints
 * {@code CONNECTED} and lives until its standard input closes, or until the test kills it.
 * <p>
 * Arguments: the directory, the peer's IPv4 address.
 */
public final class ForkedClientMain
{
    static final long MEMORY_BYTES = 1 << 20;

    private ForkedClientMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (DriverContext context = DriverContext.open(Path.of(args[0])))
        {
            final RcEnd end = new RcEnd(context, MEMORY_BYTES);
            System.out.println("QP " + end.qp.qpn() + " " + end.mr.address() + " " + end.mr.rKey());
            System.out.flush();
            final String peerQpn = in.readLine();
            if (peerQpn == null)
            {
                return;
            }
            end.connect(Integer.parseInt(peerQpn.trim()), InetAddress.getByName(args[1]), 14, 7);
            System.out.println("CONNECTED");
            System.out.flush();
            while (in.readLine() != null)
            {
                // lives until killed
            }
        }
        catch (final Throwable ex)
        {
            ex.printStackTrace();
            System.exit(1);
        }
    }
}
