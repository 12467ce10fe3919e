package io.latelake.analyst;

import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.plans.QueryPlan;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Decides from Spark's parsed plan whether a statement only reads. Every node of the plan — its
 * children, the inner plans of CTE definitions and the plans of subqueries inside expressions —
 * must be one of a fixed set of query nodes (projection, filter, joins, aggregates, set operations,
 * CTEs, relations with time travel, ...) or a SHOW / DESCRIBE statement. Anything else (INSERT,
 * MERGE, DELETE, UPDATE, CREATE, DROP, ALTER, OPTIMIZE, VACUUM, SET, CACHE, ...) is refused with
 * exit code 2, naming the node. A statement the parser does not accept is refused the same way.
 */
public final class ReadOnlyGuard {
  /** Simple class names of the logical plan nodes a read-only statement may contain. */
  static final Set<String> READ_NODES =
      Set.of(
          // queries
          "Project",
          "Filter",
          "Aggregate",
          "Sort",
          "GlobalLimit",
          "LocalLimit",
          "Offset",
          "Tail",
          "Join",
          "LateralJoin",
          "Union",
          "Intersect",
          "Except",
          "Distinct",
          "Deduplicate",
          "SubqueryAlias",
          "UnresolvedWith",
          "WithCTE",
          "CTERelationDef",
          "CTERelationRef",
          "UnionLoop",
          "UnionLoopRef",
          "UnresolvedRelation",
          "RelationTimeTravel",
          "OneRowRelation",
          "LocalRelation",
          "UnresolvedInlineTable",
          "UnresolvedTableValuedFunction",
          "UnresolvedTVFAliases",
          "Generate",
          "Expand",
          "Window",
          "WithWindowDefinition",
          "Pivot",
          "Unpivot",
          "Sample",
          "UnresolvedHint",
          "RepartitionByExpression",
          "Repartition",
          "RebalancePartitions",
          "UnresolvedSubqueryColumnAliases",
          "Range",
          "PlanWithUnresolvedIdentifier",
          "UnresolvedHaving",
          "NamedParametersSupport",
          // SHOW and DESCRIBE
          "ShowTables",
          "ShowTablesExtended",
          "ShowViews",
          "ShowNamespaces",
          "ShowNamespacesCommand",
          "ShowColumns",
          "ShowTableProperties",
          "ShowCreateTable",
          "ShowPartitions",
          "ShowFunctions",
          "DescribeRelation",
          "DescribeColumn",
          "DescribeNamespace",
          "DescribeFunction",
          "UnresolvedNamespace",
          "UnresolvedTableOrView",
          "UnresolvedTable",
          "UnresolvedView",
          "CurrentNamespace",
          "UnresolvedFunctionName",
          "DescribeDeltaHistory",
          "DescribeDeltaDetailCommand",
          "UnresolvedPathBasedDeltaTable");

  private ReadOnlyGuard() {}

  /**
   * @param statement one SQL statement (no trailing semicolon needed)
   * @param label how to name the statement in messages, e.g. "statement 2"
   * @return the parsed plan
   * @throws LatelakeException (exit 2) when it does not parse or would write or change anything
   */
  public static LogicalPlan check(SparkSession spark, String statement, String label) {
    LogicalPlan plan = parse(spark, statement, label);
    Deque<QueryPlan<?>> todo = new ArrayDeque<>();
    todo.push(plan);
    while (!todo.isEmpty()) {
      QueryPlan<?> p = todo.pop();
      String name = p.getClass().getSimpleName();
      if (!READ_NODES.contains(name)) {
        throw new LatelakeException(
            "Refused "
                + label
                + ": it is not read-only (Spark plans it "
                + "as "
                + name
                + "); latelake sql only reads unless --allow-writes is given",
            ExitCode.USAGE);
      }
      for (Object child : CollectionConverters.asJava(p.children())) {
        todo.push((QueryPlan<?>) child);
      }
      for (QueryPlan<?> inner : CollectionConverters.asJava(p.innerChildren())) {
        todo.push(inner);
      }
      for (Expression e : CollectionConverters.asJava(p.expressions())) {
        pushSubqueries(e, todo);
      }
    }
    return plan;
  }

  /**
   * @return the parsed plan
   * @throws LatelakeException (exit 2) when the statement does not parse
   */
  public static LogicalPlan parse(SparkSession spark, String statement, String label) {
    try {
      return spark.sessionState().sqlParser().parsePlan(statement);
    } catch (ParseException e) {
      throw new LatelakeException(
          "Cannot parse " + label + ": " + e.getMessage().strip(), ExitCode.USAGE, e);
    }
  }

  private static void pushSubqueries(Expression e, Deque<QueryPlan<?>> todo) {
    Deque<Expression> exprs = new ArrayDeque<>();
    exprs.push(e);
    while (!exprs.isEmpty()) {
      Expression x = exprs.pop();
      if (x instanceof SubqueryExpression s) {
        todo.push(s.plan());
      }
      for (Expression c : CollectionConverters.asJava(x.children())) {
        exprs.push(c);
      }
    }
  }
}
