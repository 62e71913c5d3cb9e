package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.Frame;

import java.util.function.IntFunction;

/**
 * One request a reconnection sends to re-create something, written at once and awaited after all the others:
 * a reconnection of a connection with many consumers waits one round trip, not one per consumer.
 *
 * @param request the request written
 * @param what    the request's name, for messages
 * @param onError what an ERROR answer means for the thing re-created
 */
public record Reestablishing(PendingRequests.Request request, String what, ErrorHandler onError) {

    /** What an ERROR answer means for the thing re-created. */
    @FunctionalInterface
    public interface ErrorHandler {
        void handle(Frame.Error error) throws ClientException;
    }

    /** Writes the request on {@code on} now. */
    public static Reestablishing of(CoreConnection connection, ConnectedLink on, IntFunction<Frame> frame, String what,
                                    ErrorHandler onError) {
        PendingRequests.Request request = connection.register(on);
        on.write(frame.apply(request.id));
        return new Reestablishing(request, what, onError);
    }

    /** An ERROR fails the reconnection attempt. */
    public static void fail(Frame.Error error) throws ClientException {
        throw ClientException.of(error);
    }

    void await(CoreConnection connection) throws ClientException {
        Frame.Error error = connection.await(request, what);
        if (error != null) {
            onError.handle(error);
        }
    }
}
