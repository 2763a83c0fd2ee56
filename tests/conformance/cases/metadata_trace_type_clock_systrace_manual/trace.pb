# tracer: nop
#
          <idle>-0     (-----) [000] d..2  1000.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=5 next_prio=120
