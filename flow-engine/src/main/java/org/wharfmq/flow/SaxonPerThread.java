package org.wharfmq.flow;

import net.sf.saxon.Controller;

import java.util.function.Supplier;

/**
 * One Saxon evaluator (an {@code XPathSelector}, an {@code XsltTransformer}) per thread that uses a compiled
 * expression or stylesheet, kept for that thread's next use instead of loaded anew for every message: a load makes
 * Saxon's controller, dynamic context and stack frame (some 1.2 KB for an XPath expression, more for a stylesheet).
 * Saxon's evaluators are serially reusable but not thread-safe, so none is ever shared between threads: each flow
 * instance's thread (and each HTTP worker that runs one) has its own, and a thread that ends takes its evaluators
 * with it. One thread uses its evaluator for one evaluation at a time (an evaluation calls no flow code).
 *
 * <p>After each use the evaluator is put back as loaded ({@link #fresh(Controller)}), so an evaluation sees
 * nothing of the one before it and the evaluator keeps no message's tree between uses.
 *
 * @param <E> the evaluator
 */
final class SaxonPerThread<E> {

    private final ThreadLocal<E> evaluators;

    /** @param load makes a new evaluator (the executable's {@code load()}), once per thread */
    SaxonPerThread(Supplier<E> load) {
        this.evaluators = ThreadLocal.withInitial(load);
    }

    /** The calling thread's evaluator. */
    E get() {
        return evaluators.get();
    }

    /**
     * Puts a controller back as a new one starts: a fresh current date and time (XPath's {@code current-dateTime()}
     * is stable within one evaluation, not across messages), no documents read by {@code doc()} kept, no key
     * indexes, parameters, global context item or result-document URIs of the last use (Saxon's own
     * {@link Controller#reset()}, which a new controller runs, and a new document pool, which it makes).
     */
    static void fresh(Controller controller) {
        controller.reset();
        controller.clearDocumentPool();
    }
}
