/**
 * The built-in node types: Input, Output, Publication, RouteToLabel and Label, TryCatch, Throw, Trace and
 * Passthrough; Filter, Route, XSLT and Validation on XML bodies; Database, DatabaseCall, DatabaseRetrieve and
 * DatabaseRoute on the flow host's data sources ({@link org.wharfmq.flow.node.SqlNode}). User logic extends
 * {@link org.wharfmq.flow.JavaComputeNode}.
 */
package org.wharfmq.flow.node;
