package io.latelake.analyst;

import java.util.Deque;
import java.util.Set;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.trees.TreeNode;
import org.apache.spark.sql.types.DataType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * For {@link ReadOnlyGuard}: the logical plan nodes and read options a read-only statement may
 * hold, one name a line, and the walk over everything a node holds.
 */
final class PlanNodes {
  private PlanNodes() {}

  /** Options a read may carry ({@code WITH (...)}), lower case: Delta's time travel. */
  static final Set<String> READ_OPTIONS = Set.of("versionasof", "timestampasof");

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
          "UnresolvedPathBasedDeltaTable",
          "UnresolvedPathBasedTable");

  /**
   * Pushes every plan and expression a node holds: its children and inner children, and whatever
   * its fields hold, also inside options, collections, maps and tuples (a window definition, a
   * hint's parameters, a CTE's definitions).
   */
  static void pushMembers(TreeNode<?> node, Deque<Object> todo) {
    pushAll(node.productIterator(), todo);
    for (Object child : CollectionConverters.asJava(node.children())) {
      todo.push(child);
    }
    for (Object inner : CollectionConverters.asJava(node.innerChildren())) {
      todo.push(inner);
    }
  }

  private static void pushAll(scala.collection.Iterator<?> values, Deque<Object> todo) {
    while (values.hasNext()) {
      Object value = values.next();
      if (value instanceof TreeNode<?>) {
        todo.push(value);
      } else if (value instanceof scala.Option<?> o) {
        pushAll(o.iterator(), todo);
      } else if (value instanceof scala.collection.Iterable<?> i) {
        pushAll(i.iterator(), todo);
      } else if (value instanceof scala.Product p && !(value instanceof DataType)) {
        pushAll(p.productIterator(), todo);
      }
    }
  }

  /** The node's simple class name, without a Scala case object's {@code $}. */
  static String nodeName(LogicalPlan p) {
    // A Scala case object (CurrentNamespace of a plain SHOW TABLES) is a class named with a '$'.
    String name = p.getClass().getSimpleName();
    return name.endsWith("$") ? name.substring(0, name.length() - 1) : name;
  }
}
