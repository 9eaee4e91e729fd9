import { RemovalPolicy } from 'aws-cdk-lib';
import {
  FlowLogDestination,
  GatewayVpcEndpointAwsService,
  type ISecurityGroup,
  type IVpc,
  Peer,
  Port,
  SecurityGroup,
  type SubnetSelection,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { Cluster, ContainerInsights, type ICluster } from 'aws-cdk-lib/aws-ecs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { DEFAULT_LOG_RETENTION } from './defaults.js';

/** Where the ECS jobs' tasks run, as the schedules and the sweeper's RunTask give it. */
export interface EcsPlacement {
  /** The cluster (its `vpc` holds the subnets). */
  readonly cluster: ICluster;
  /** The subnets of the tasks' network interfaces. */
  readonly subnets: SubnetSelection;
  /** The tasks' security groups. */
  readonly securityGroups: readonly ISecurityGroup[];
  /** Whether a task's interface gets a public IP (needed to reach AWS APIs from a public subnet without NAT). */
  readonly assignPublicIp: boolean;
}

/** Properties of {@link EcsNetwork}. */
export interface EcsNetworkProps {
  /**
   * A cluster of your own (with its VPC); the tasks then run in `subnets` of its VPC.
   * @default - a new cluster in a new VPC (below)
   */
  readonly cluster?: ICluster;
  /** Subnets of the tasks. @default - public subnets of the new VPC; private with egress of a given cluster */
  readonly subnets?: SubnetSelection;
  /** Security groups of the tasks. @default - one group allowing only outbound HTTPS (443) */
  readonly securityGroups?: readonly ISecurityGroup[];
  /** Public IP on the task's interface. @default - true in public subnets, else false */
  readonly assignPublicIp?: boolean;
}

/**
 * The network the ECS jobs' Fargate tasks run in. By default a cluster (Fargate and Fargate Spot
 * capacity providers, Container Insights) in a new VPC of two public subnets without NAT gateways: a
 * task gets a public IP and reaches ECR, CloudWatch Logs and DynamoDB over HTTPS, DynamoDB through a
 * gateway endpoint (free; the table traffic stays in the VPC); its security group allows no inbound
 * traffic and outbound 443 only. VPC flow logs go to a log group with the stack's retention. Pass
 * `cluster` (and `subnets`) to run in a network of your own.
 * @example
 * const network = new EcsNetwork(this, 'Ecs', {});
 * network.placement.cluster;
 */
export class EcsNetwork extends Construct {
  /** Cluster, subnets, security groups and public-IP choice of the tasks. */
  public readonly placement: EcsPlacement;
  /** The VPC the tasks run in. */
  public readonly vpc: IVpc;

  constructor(scope: Construct, id: string, props: EcsNetworkProps) {
    super(scope, id);
    let cluster = props.cluster;
    let subnets = props.subnets;
    if (cluster === undefined) {
      const vpc = new Vpc(this, 'Vpc', {
        maxAzs: 2,
        natGateways: 0,
        subnetConfiguration: [{ name: 'tasks', subnetType: SubnetType.PUBLIC, cidrMask: 24 }],
        gatewayEndpoints: { DynamoDb: { service: GatewayVpcEndpointAwsService.DYNAMODB } },
      });
      vpc.addFlowLog('FlowLogs', {
        destination: FlowLogDestination.toCloudWatchLogs(
          new LogGroup(this, 'FlowLogGroup', {
            retention: DEFAULT_LOG_RETENTION,
            removalPolicy: RemovalPolicy.DESTROY,
          }),
        ),
      });
      cluster = new Cluster(this, 'Cluster', {
        vpc,
        enableFargateCapacityProviders: true,
        containerInsightsV2: ContainerInsights.ENABLED,
      });
      subnets ??= { subnetType: SubnetType.PUBLIC };
    }
    this.vpc = cluster.vpc;
    subnets ??= { subnetType: SubnetType.PRIVATE_WITH_EGRESS };
    let securityGroups = props.securityGroups;
    if (securityGroups === undefined) {
      const group = new SecurityGroup(this, 'TaskSecurityGroup', {
        vpc: cluster.vpc,
        allowAllOutbound: false,
        description: 'cronfence ECS job tasks: no inbound; outbound HTTPS to AWS APIs only',
      });
      group.addEgressRule(Peer.anyIpv4(), Port.tcp(443), 'HTTPS to ECR, CloudWatch Logs, DynamoDB');
      securityGroups = [group];
    }
    this.placement = {
      cluster,
      subnets,
      securityGroups,
      assignPublicIp: props.assignPublicIp ?? subnets.subnetType === SubnetType.PUBLIC,
    };
  }
}
