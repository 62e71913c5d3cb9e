package org.wharfmq.perf.driver;

import org.wharfmq.perf.flow.FileFlow;

import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.BitSet;

/**
 * Not JMSPerfHarness's: feeds a FileInput flow (F-FILE) and takes what it produced. Each worker keeps up to
 * {@code -fw} files of its own ({@value #DEFAULT_WINDOW} without it) in the flow's folder ({@code -iq}), as the seed's
 * script kept its folder topped up, so the flow always finds files to take and the rate is the flow's, not its polling
 * interval's: it writes each file under a {@code .part} name and renames it into the folder (a rename is atomic: the
 * node never sees half a file), named {@code KEY~NUMBER.msg} ({@link FileFlow#fileName}), then takes the flow's
 * outputs from {@code -oq} with a consumer selecting its key as correlation id. An operation is an output received;
 * its latency runs from the file's rename to its output's receipt.
 *
 * <p>Every file must come out once: an output whose number already came is a duplicate, and when none comes within
 * {@code -to} every file still outstanding is a loss (and the worker stops: its window is stuck). When the run
 * stops the worker waits for the outputs of the files it has written.
 */
final class FileFeeder extends Worker {

    /** Files a worker keeps in the folder when {@code -fw} is not given. */
    static final int DEFAULT_WINDOW = 10;

    private final byte[] body;
    private final String key;
    private final int window;
    /** When each outstanding file was renamed into the folder, at {@code number % window}. */
    private final long[] writtenNanos;
    /** The numbers whose output came. */
    private final BitSet arrived = new BitSet();
    private Path directory;
    private MessageConsumer consumer;
    private long written;
    /** The lowest number whose output has not come: every outstanding file is in [lowest, lowest + window). */
    private int lowest;

    FileFeeder(WorkerSetup setup) {
        super(setup);
        this.body = setup.bodies().bytes();
        this.key = "perf-" + setup.runId() + "-" + setup.processId() + "-" + index;
        this.window = options.flowWindow() > 0 ? options.flowWindow() : DEFAULT_WINDOW;
        this.writtenNanos = new long[window];
    }

    @Override
    void open() throws JMSException {
        directory = Path.of(options.requestQueue());
        if (!Files.isDirectory(directory)) {
            throw new IllegalStateException("-iq " + directory + ": the flow's folder does not exist");
        }
        consumer = session.createConsumer(provider.queue(session, options.replyQueue()), "JMSCorrelationID = '" + key + "'");
    }

    @Override
    void iterate() throws JMSException {
        while (written - lowest < window) {
            write();
        }
        if (!take()) {
            throw new IllegalStateException("no output from F-FILE within " + options.timeoutSeconds() + " s: "
                    + (written - arrived.cardinality()) + " file(s) of " + name + " lost");
        }
    }

    @Override
    void finish() throws JMSException {
        while (lowest < written) {
            if (!take()) {
                return;
            }
        }
    }

    private void write() {
        String name = FileFlow.fileName(key, written);
        try {
            Path part = Files.write(directory.resolve(name + ".part"), body);
            Files.move(part, directory.resolve(name), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + name + " into " + directory, e);
        }
        writtenNanos[(int) (written % window)] = System.nanoTime();
        written++;
    }

    /** Takes one output; false (every outstanding file counted lost) when none comes within the timeout. */
    private boolean take() throws JMSException {
        Message output = consumer.receive(receiveTimeoutMillis);
        if (output == null) {
            for (int n = arrived.nextClearBit(lowest); n < written; n = arrived.nextClearBit(n + 1)) {
                control.loss("no output within " + options.timeoutSeconds() + " s for file "
                        + FileFlow.fileName(key, n) + " of " + name);
            }
            return false;
        }
        int number = (int) output.getLongProperty(FileFlow.NUMBER);
        if (number < 0 || number >= written) {
            control.unexpected("an output for file " + number + " of " + name + ", which wrote " + written);
        } else if (arrived.get(number)) {
            control.duplicate("a second output for file " + FileFlow.fileName(key, number) + " of " + name);
        } else {
            arrived.set(number);
            recordLatency(writtenNanos[number % window]);
            lowest = arrived.nextClearBit(lowest);
            control.iterationDone();
        }
        return true;
    }
}
