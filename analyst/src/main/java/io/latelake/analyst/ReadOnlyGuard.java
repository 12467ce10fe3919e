package io.latelake.analyst;

import java.net.URI;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.ExpressionWithUnresolvedIdentifier;
import org.apache.spark.sql.catalyst.analysis.PlanWithUnresolvedIdentifier;
import org.apache.spark.sql.catalyst.analysis.UnresolvedFunction;
import org.apache.spark.sql.catalyst.analysis.UnresolvedFunctionName;
import org.apache.spark.sql.catalyst.analysis.UnresolvedGenerator;
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation;
import org.apache.spark.sql.catalyst.analysis.UnresolvedTVFAliases;
import org.apache.spark.sql.catalyst.analysis.UnresolvedTable;
import org.apache.spark.sql.catalyst.analysis.UnresolvedTableOrView;
import org.apache.spark.sql.catalyst.analysis.UnresolvedTableValuedFunction;
import org.apache.spark.sql.catalyst.analysis.UnresolvedView;
import org.apache.spark.sql.catalyst.expressions.Concat;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.plans.QueryPlan;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.trees.TreeNode;
import org.apache.spark.sql.delta.UnresolvedPathBasedDeltaTable;
import org.apache.spark.sql.delta.UnresolvedPathBasedTable;
import org.apache.spark.unsafe.types.UTF8String;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Decides whether a statement only reads, from Spark's parsed plan, before anything runs. Every
 * node of the plan is looked at: children, the inner plans of CTE definitions, the plans of
 * subqueries, and every expression a node holds (select lists, conditions, window definitions,
 * lateral views, hints, table function arguments, lambdas, time travel). Refused with exit code 2,
 * naming what was refused, unless {@code latelake sql --allow-writes}:
 *
 * <ul>
 *   <li>a node that is not one of {@link PlanNodes#READ_NODES} (query nodes, SHOW, DESCRIBE):
 *       INSERT, MERGE, DELETE, UPDATE, CREATE, DROP, ALTER, OPTIMIZE, VACUUM, CACHE, SET, RESET,
 *       USE, ADD JAR / FILE / ARCHIVE, CREATE / DROP FUNCTION, DECLARE / SET VARIABLE, EXECUTE
 *       IMMEDIATE, CALL, EXPLAIN ...: they write, change the session or run other SQL;
 *   <li>a function call other than a Spark built-in, or a denied one ({@link ReadOnlyFunctions}):
 *       reflection, file access, user-defined and catalog functions;
 *   <li>a read by path other than a Delta table under {@code lake.root} ({@link LakePaths}): {@code
 *       text.`/etc/passwd`}, {@code csv.`x`}, {@code delta.`/elsewhere`}, {@code DESCRIBE HISTORY
 *       '/elsewhere'}, a {@code path} option on a table;
 *   <li>{@code IDENTIFIER(...)} whose argument is not a string literal or literals joined with
 *       {@code ||}: a constant name is resolved here, as Spark would, and then checked like a name
 *       written out (the notebooks build table names this way).
 * </ul>
 *
 * Spark's own {@code spark.sql.runSQLOnFiles} stays on: turning it off would also turn off Delta's
 * path identifiers ({@code delta.`<path>`}, which its catalog resolves only while that setting is
 * on), and reading a Delta table under the root by path is allowed (the backfill names the old
 * table so). The guard refuses the other formats itself.
 *
 * <p>A view is resolved only by Spark's analysis: {@link #checkAnalyzed} looks at the analyzed plan
 * of each query before it runs and refuses denied built-ins and user-defined functions there. Paths
 * a view reads are the view's (views are created with writes allowed).
 *
 * <p>The allowed nodes and the walk over a node's members are in {@link PlanNodes}; the function
 * and path rules in {@link ReadOnlyFunctions} and {@link LakePaths}.
 */
public final class ReadOnlyGuard {
  private static final String READ_ONLY =
      "; latelake sql only reads unless --allow-writes is given";

  private final SparkSession spark;
  private final LakePaths paths;

  private ReadOnlyGuard(SparkSession spark, LakePaths paths) {
    this.spark = spark;
    this.paths = paths;
  }

  /**
   * @param lakeRoot {@code lake.root}: Delta tables under it may be read by path
   * @return the guard of {@code latelake sql} and {@code latelake notebook run}
   */
  public static ReadOnlyGuard forLake(SparkSession spark, String lakeRoot) {
    return new ReadOnlyGuard(spark, LakePaths.under(lakeRoot, defaultFs(spark)));
  }

  /**
   * @return a guard that allows catalog tables only, no read by path
   */
  public static ReadOnlyGuard catalogOnly(SparkSession spark) {
    return new ReadOnlyGuard(spark, LakePaths.none(defaultFs(spark)));
  }

  /**
   * @param statement one SQL statement (no trailing semicolon needed)
   * @param label how to name the statement in messages, e.g. "statement 2"
   * @return the parsed plan
   * @throws RefusedSqlException (exit 2) when it does not parse, or would write, change anything,
   *     call a function that is not allowed or read by path outside the lake
   */
  public LogicalPlan check(String statement, String label) {
    LogicalPlan plan = parse(spark, statement, label);
    Deque<Object> todo = new ArrayDeque<>();
    Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    todo.push(plan);
    while (!todo.isEmpty()) {
      Object next = todo.pop();
      if (!seen.add(next)) {
        continue;
      }
      if (next instanceof PlanWithUnresolvedIdentifier p) {
        todo.push(p.planBuilder().apply(identifier(p.identifierExpr(), label), p.children()));
      } else if (next instanceof ExpressionWithUnresolvedIdentifier e) {
        todo.push(e.exprBuilder().apply(identifier(e.identifierExpr(), label), e.otherExprs()));
      } else if (next instanceof LogicalPlan p) {
        String node = PlanNodes.nodeName(p);
        if (!PlanNodes.READ_NODES.contains(node)) {
          throw refused(label, "it is not read-only (Spark plans it as " + node + ")");
        }
        refuseIfPresent(planRefusal(p), label);
        PlanNodes.pushMembers(p, todo);
      } else if (next instanceof Expression e) {
        refuseIfPresent(callRefusal(e), label);
        PlanNodes.pushMembers(e, todo);
      }
    }
    return plan;
  }

  /**
   * Checks the analyzed plan of a statement that passed {@link #check}, before it runs: the
   * functions of the views it reads, and of names built by {@code IDENTIFIER}, are known only here.
   *
   * @param analyzed {@code Dataset.queryExecution().analyzed()}
   * @throws RefusedSqlException (exit 2) when it calls a denied built-in or a user-defined function
   */
  public void checkAnalyzed(LogicalPlan analyzed, String label) {
    Deque<TreeNode<?>> todo = new ArrayDeque<>();
    Set<TreeNode<?>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    todo.push(analyzed);
    while (!todo.isEmpty()) {
      TreeNode<?> next = todo.pop();
      if (!seen.add(next)) {
        continue;
      }
      if (next instanceof QueryPlan<?> p) {
        CollectionConverters.asJava(p.expressions()).forEach(todo::push);
        CollectionConverters.asJava(p.innerChildren()).forEach(todo::push);
      } else if (next instanceof Expression e) {
        refuseIfPresent(ReadOnlyFunctions.analyzedRefusal(e), label);
        if (e instanceof SubqueryExpression s) {
          todo.push(s.plan());
        }
      }
      for (Object child : CollectionConverters.asJava(next.children())) {
        todo.push((TreeNode<?>) child);
      }
    }
  }

  /**
   * @return the parsed plan
   * @throws RefusedSqlException (exit 2) when the statement does not parse
   */
  public static LogicalPlan parse(SparkSession spark, String statement, String label) {
    try {
      return spark.sessionState().sqlParser().parsePlan(statement);
    } catch (ParseException e) {
      throw new RefusedSqlException("Cannot parse " + label + ": " + e.getMessage().strip(), e);
    }
  }

  private Optional<String> planRefusal(LogicalPlan p) {
    if (p instanceof UnresolvedRelation r) {
      List<String> name = CollectionConverters.asJava(r.multipartIdentifier());
      Optional<String> why = paths.relationRefusal(name);
      // Only time-travel options: any other can point the read at another location or file
      // (path, paths, rowValidationXSDPath, avroSchemaUrl, recursiveFileLookup, ...).
      for (String key : r.options().keySet().stream().sorted().toList()) {
        if (why.isEmpty()
            && !PlanNodes.READ_OPTIONS.contains(key.toLowerCase(java.util.Locale.ROOT))) {
          why =
              Optional.of(
                  "the option '"
                      + key
                      + "' on "
                      + LakePaths.quoted(name)
                      + " is not allowed in read-only SQL (only versionAsOf and timestampAsOf:"
                      + " another option can point the read at another location or file)");
        }
      }
      return why;
    } else if (p instanceof UnresolvedTable t) {
      return paths.relationRefusal(CollectionConverters.asJava(t.multipartIdentifier()));
    } else if (p instanceof UnresolvedTableOrView t) {
      return paths.relationRefusal(CollectionConverters.asJava(t.multipartIdentifier()));
    } else if (p instanceof UnresolvedView v) {
      return paths.relationRefusal(CollectionConverters.asJava(v.multipartIdentifier()));
    } else if (p instanceof UnresolvedPathBasedDeltaTable d) {
      return paths.pathRefusal(d.path());
    } else if (p instanceof UnresolvedPathBasedTable d) {
      return paths.pathRefusal(d.path());
    } else if (p instanceof UnresolvedTableValuedFunction f) {
      return ReadOnlyFunctions.tableCallRefusal(CollectionConverters.asJava(f.name()));
    } else if (p instanceof UnresolvedTVFAliases a) {
      return ReadOnlyFunctions.tableCallRefusal(CollectionConverters.asJava(a.name()));
    } else if (p instanceof UnresolvedFunctionName f) {
      return ReadOnlyFunctions.describeRefusal(
          CollectionConverters.asJava(f.multipartIdentifier()));
    }
    return Optional.empty();
  }

  private static Optional<String> callRefusal(Expression e) {
    if (e instanceof UnresolvedFunction f) {
      return ReadOnlyFunctions.callRefusal(CollectionConverters.asJava(f.nameParts()));
    } else if (e instanceof UnresolvedGenerator g) {
      return ReadOnlyFunctions.callRefusal(CollectionConverters.asJava(g.name().nameParts()));
    }
    return Optional.empty();
  }

  /**
   * @return the name parts of a constant {@code IDENTIFIER(...)} argument
   * @throws RefusedSqlException (exit 2) when the argument is not constant or not a name
   */
  private scala.collection.immutable.Seq<String> identifier(Expression argument, String label) {
    Optional<String> name = constant(argument);
    if (name.isEmpty()) {
      throw refused(
          label,
          "IDENTIFIER(...) is not allowed in read-only SQL unless its argument is a string literal"
              + " or string literals joined with ||");
    }
    try {
      return spark.sessionState().sqlParser().parseMultipartIdentifier(name.get());
    } catch (ParseException e) {
      throw new RefusedSqlException(
          "Cannot parse " + label + ": IDENTIFIER('" + name.get() + "') is not a name", e);
    }
  }

  /**
   * @return the value of a string literal, or of string literals joined with {@code ||}
   */
  private static Optional<String> constant(Expression e) {
    if (e instanceof Literal l && l.value() instanceof UTF8String s) {
      return Optional.of(s.toString());
    }
    if (e instanceof Concat c) {
      StringBuilder joined = new StringBuilder();
      for (Expression part : CollectionConverters.asJava(c.children())) {
        Optional<String> value = constant(part);
        if (value.isEmpty()) {
          return Optional.empty();
        }
        joined.append(value.get());
      }
      return Optional.of(joined.toString());
    }
    return Optional.empty();
  }

  private static void refuseIfPresent(Optional<String> why, String label) {
    if (why.isPresent()) {
      throw refused(label, why.get());
    }
  }

  private static RefusedSqlException refused(String label, String why) {
    return new RefusedSqlException("Refused " + label + ": " + why + READ_ONLY);
  }

  private static URI defaultFs(SparkSession spark) {
    return FileSystem.getDefaultUri(spark.sparkContext().hadoopConfiguration());
  }
}
