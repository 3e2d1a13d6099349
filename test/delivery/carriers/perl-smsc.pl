#!/usr/bin/perl
# An SMSC that is not ours, for the SMPP client tests: Net::SMPP (Debian's libnet-smpp-perl) in
# the SMSC role on 127.0.0.1. One process, one select loop over the listening socket, every
# connection and stdin; it exits on stdin EOF or when its parent dies, so it never outlives the test.
#
#   perl perl-smsc.pl [--port 0] [--system-id switchboard] [--password secret]
#                     [--receipt-delay-ms 50] [--receipt-ids hex|decimal] [--receipt-tlvs]
#                     [--first-id a0000000] [--fail-destination 666$] [--fail-text MARK] [--fail-err 034]
#
# stdout: first `PORT <n>`, then one JSON object a line: every PDU received ("event":"pdu", with its
# fields, TLVs by hex tag with hex values, and the answer given), every request sent ("event":"sent")
# and connections opened and closed. stdin: one JSON command a line:
#   {"command":"mo","source":"…","destination":"…","short_message":"<hex>","data_coding":0,"esm_class":0}
#   {"command":"enquire_link"}   {"command":"unbind"}   {"command":"drop"} (close every connection)
#
# A submit_sm gets a hex message id (8 digits, counting up from --first-id); when its
# registered_delivery asks for one, a receipt (deliver_sm, esm_class 0x04) follows after the delay
# on a receiving bind (receiver or transceiver) of the same system_id, naming the id in hex or, with
# --receipt-ids decimal, in decimal as some SMSCs do. stat is DELIVRD, or UNDELIV (err --fail-err)
# when the destination matches --fail-destination or the part's text contains --fail-text.
use strict;
use warnings;
use Getopt::Long qw(GetOptions);
use IO::Select;
use JSON::PP;
use Net::SMPP;
use POSIX qw(strftime);
use Time::HiRes qw(time);

my %opt = (
    'port'             => 0,
    'system-id'        => 'switchboard',
    'password'         => 'secret',
    'receipt-delay-ms' => 50,
    'receipt-ids'      => 'hex',
    'receipt-tlvs'     => 0,
    'first-id'         => sprintf('%08x', 0xa0000000 + int(rand(0x10000000))),
    'fail-destination' => '666$',
    'fail-text'        => undef,
    'fail-err'         => '034',
);
GetOptions(\%opt, 'port=i', 'system-id=s', 'password=s', 'receipt-delay-ms=i', 'receipt-ids=s',
    'receipt-tlvs!', 'first-id=s', 'fail-destination=s', 'fail-text=s', 'fail-err=s')
    or die "perl-smsc: bad arguments\n";
die "perl-smsc: --receipt-ids is hex or decimal\n" unless $opt{'receipt-ids'} =~ /^(hex|decimal)$/;
die "perl-smsc: --first-id is hex\n" unless $opt{'first-id'} =~ /^[0-9a-f]{1,8}$/i;

use constant {
    ESME_ROK        => 0x00,
    ESME_RINVCMDID  => 0x03,
    ESME_RINVBNDSTS => 0x04,
    ESME_RALYBND    => 0x05,
    ESME_RBINDFAIL  => 0x0d,
};
my %COMMANDS = (
    0x00000001 => 'bind_receiver',    0x00000002 => 'bind_transmitter', 0x00000004 => 'submit_sm',
    0x00000006 => 'unbind',           0x00000009 => 'bind_transceiver', 0x00000015 => 'enquire_link',
    0x80000000 => 'generic_nack',     0x80000005 => 'deliver_sm_resp',  0x80000006 => 'unbind_resp',
    0x80000015 => 'enquire_link_resp',
);

# Net::SMPP warns about every vendor TLV (0x1400…) and every closed socket: both are expected here.
$SIG{__WARN__} = sub { print STDERR $_[0] unless $_[0] =~ /^(Unknown tag|premature eof|error reading)/ };
$SIG{PIPE} = 'IGNORE';
$| = 1;

my $json = JSON::PP->new->canonical;
sub emit { print $json->encode($_[0]), "\n" }

my $listener = Net::SMPP->new_listen('127.0.0.1', port => $opt{port}, async => 1, smpp_version => 0x34)
    or die "perl-smsc: cannot listen on 127.0.0.1:$opt{port}: $!\n";
print 'PORT ', $listener->sockport, "\n";

my $select = IO::Select->new($listener, \*STDIN);
my %connections;     # fileno => { id, sock, mode, system_id }
my $next_connection = 1;
my $next_id = hex $opt{'first-id'};
my @receipts;        # { due, message_id, connection, system_id, pdu (the submit_sm), body, fails, submitted }
my $stdin_buffer = '';
my $parent = getppid();

sub receives { my ($c) = @_; return defined $c->{mode} && $c->{mode} ne 'transmitter' }
sub transmits { my ($c) = @_; return defined $c->{mode} && $c->{mode} ne 'receiver' }

sub close_connection {
    my ($c, $why) = @_;
    return unless $connections{ fileno $c->{sock} };
    delete $connections{ fileno $c->{sock} };
    $select->remove($c->{sock});
    close $c->{sock};
    emit({ event => 'closed', conn => $c->{id}, why => $why });
}

sub tlvs_of {
    my ($pdu) = @_;
    return { map { (sprintf('%04x', $_) => unpack('H*', $pdu->{$_})) } grep { /^\d+$/ } keys %$pdu };
}

# Net::SMPP numbers requests itself; taking the number first lets the line be logged before the PDU goes out.
sub next_seq { my ($c) = @_; return ++${ *{ $c->{sock} } }{seq} }

sub smpp_date { strftime('%y%m%d%H%M', gmtime($_[0])) }

sub answer_bind {
    my ($c, $pdu, $mode) = @_;
    my $status = defined $c->{mode} ? ESME_RALYBND
        : ($pdu->{system_id} eq $opt{'system-id'} && $pdu->{password} eq $opt{password}) ? ESME_ROK
        : ESME_RBINDFAIL;
    if ($status == ESME_ROK) {
        $c->{mode} = $mode;
        $c->{system_id} = $pdu->{system_id};
    }
    my $respond = "bind_${mode}_resp";
    my %seen = (system_id => $pdu->{system_id}, system_type => $pdu->{system_type},
        interface_version => $pdu->{interface_version}, answer => $status);
    return (\%seen, sub { $c->{sock}->$respond(seq => $pdu->{seq}, status => $status, system_id => 'PERLSMSC') });
}

sub answer_submit {
    my ($c, $pdu) = @_;
    my %seen = (
        service_type        => $pdu->{service_type},
        source              => $pdu->{source_addr},
        source_ton          => $pdu->{source_addr_ton},
        source_npi          => $pdu->{source_addr_npi},
        destination         => $pdu->{destination_addr},
        dest_ton            => $pdu->{dest_addr_ton},
        dest_npi            => $pdu->{dest_addr_npi},
        esm_class           => $pdu->{esm_class},
        registered_delivery => $pdu->{registered_delivery},
        data_coding         => $pdu->{data_coding},
        short_message       => unpack('H*', $pdu->{short_message}),
        tlvs                => tlvs_of($pdu),
    );
    unless (transmits($c)) {
        return ({ %seen, answer => ESME_RINVBNDSTS },
            sub { $c->{sock}->submit_sm_resp(seq => $pdu->{seq}, status => ESME_RINVBNDSTS, message_id => '') });
    }
    my $message_id = sprintf('%08x', $next_id++);
    my $wanted = $pdu->{registered_delivery} & 0x03;
    my $body = $pdu->{short_message};
    # The UDH (its length in the first byte) is not text a --fail-text can match.
    $body = substr($body, 1 + ord $body) if $pdu->{esm_class} & 0x40 && length $body;
    my $fails = $pdu->{destination_addr} =~ /$opt{'fail-destination'}/
        || (defined $opt{'fail-text'} && index($body, $opt{'fail-text'}) >= 0);
    if ($wanted == 1 || ($wanted == 2 && $fails)) {
        push @receipts, { due => time + $opt{'receipt-delay-ms'} / 1000, message_id => $message_id,
            connection => $c->{id}, system_id => $c->{system_id}, pdu => $pdu, fails => $fails,
            body => $body, submitted => time };
    }
    return ({ %seen, answer => ESME_ROK, message_id => $message_id },
        sub { $c->{sock}->submit_sm_resp(seq => $pdu->{seq}, message_id => $message_id) });
}

sub receiving_connection {
    my ($system_id, $preferred) = @_;
    my @candidates = sort { $a->{id} <=> $b->{id} }
        grep { receives($_) && $_->{system_id} eq $system_id } values %connections;
    my ($same) = grep { defined $preferred && $_->{id} == $preferred } @candidates;
    return $same // $candidates[0];
}

sub send_receipt {
    my ($r) = @_;
    my $c = receiving_connection($r->{system_id}, $r->{connection}) or return 0;
    my $pdu = $r->{pdu};
    my $stat = $r->{fails} ? 'UNDELIV' : 'DELIVRD';
    my $err = $r->{fails} ? $opt{'fail-err'} : '000';
    my $id = $opt{'receipt-ids'} eq 'decimal' ? hex($r->{message_id}) : $r->{message_id};
    my $quoted = $pdu->{data_coding} == 0 ? substr($r->{body}, 0, 20) =~ tr/\x20-\x7e/./cr : '';
    my $text = sprintf('id:%s sub:001 dlvrd:%s submit date:%s done date:%s stat:%s err:%s text:%s',
        $id, $r->{fails} ? '000' : '001', smpp_date($r->{submitted}), smpp_date(time), $stat, $err, $quoted);
    my @tlvs = $opt{'receipt-tlvs'}
        ? (receipted_message_id => "$r->{message_id}\0", message_state => pack('C', $r->{fails} ? 5 : 2))
        : ();
    my $seq = next_seq($c);
    emit({ event => 'sent', conn => $c->{id}, command => 'deliver_sm', seq => $seq, kind => 'receipt',
        receipt_for => $r->{message_id}, stat => $stat, text => $text });
    $c->{sock}->deliver_sm(seq => $seq,
        source_addr_ton => $pdu->{dest_addr_ton}, source_addr_npi => $pdu->{dest_addr_npi},
        source_addr => $pdu->{destination_addr},
        dest_addr_ton => $pdu->{source_addr_ton}, dest_addr_npi => $pdu->{source_addr_npi},
        destination_addr => $pdu->{source_addr},
        esm_class => 0x04, data_coding => 0, short_message => $text, @tlvs);
    return 1;
}

sub control {
    my ($line) = @_;
    my $command = eval { $json->decode($line) };
    return emit({ event => 'error', message => "control line is not JSON: $line" }) unless ref $command eq 'HASH';
    my $name = $command->{command} // '';
    my @bound = sort { $a->{id} <=> $b->{id} } grep { defined $_->{mode} } values %connections;
    if ($name eq 'mo') {
        my ($c) = grep { receives($_) && (!defined $command->{conn} || $_->{id} == $command->{conn}) } @bound;
        return emit({ event => 'error', message => 'mo: no receiving bind' }) unless $c;
        my $seq = next_seq($c);
        emit({ event => 'sent', conn => $c->{id}, command => 'deliver_sm', seq => $seq, kind => 'mo' });
        return $c->{sock}->deliver_sm(seq => $seq,
            source_addr_ton => 1, source_addr_npi => 1, source_addr => $command->{source},
            dest_addr_ton => 1, dest_addr_npi => 1, destination_addr => $command->{destination},
            esm_class => $command->{esm_class} // 0, data_coding => $command->{data_coding} // 0,
            short_message => pack('H*', $command->{short_message}));
    }
    if ($name eq 'enquire_link' || $name eq 'unbind') {
        for my $c (@bound) {
            my $seq = next_seq($c);
            emit({ event => 'sent', conn => $c->{id}, command => $name, seq => $seq });
            $c->{sock}->$name(seq => $seq);
        }
        return;
    }
    if ($name eq 'drop') {
        close_connection($_, 'dropped') for values %connections;
        return;
    }
    emit({ event => 'error', message => "unknown control command '$name'" });
}

sub receive {
    my ($c) = @_;
    # read_pdu blocks until the whole PDU is in: on loopback a client's PDU arrives in one piece.
    my $pdu = $c->{sock}->read_pdu();
    return close_connection($c, 'eof') unless $pdu;
    my $command = $COMMANDS{ $pdu->{cmd} } // sprintf('0x%08x', $pdu->{cmd});
    my %entry = (event => 'pdu', conn => $c->{id}, command => $command, seq => $pdu->{seq},
        status => $pdu->{status});
    my $sock = $c->{sock};
    my ($seen, $respond) = ({}, sub { });
    # Logged before the answer goes out, so a test that saw the answer finds the line already written.
    if ($command =~ /^bind_(\w+)$/) {
        ($seen, $respond) = answer_bind($c, $pdu, $1);
    } elsif ($command eq 'submit_sm') {
        ($seen, $respond) = answer_submit($c, $pdu);
    } elsif ($command eq 'enquire_link') {
        $respond = sub { $sock->enquire_link_resp(seq => $pdu->{seq}) };
    } elsif ($command eq 'unbind') {
        $respond = sub { $sock->unbind_resp(seq => $pdu->{seq}); close_connection($c, 'unbind') };
    } elsif (!($pdu->{cmd} & 0x80000000)) {
        ($seen, $respond) = ({ answer => ESME_RINVCMDID },
            sub { $sock->generic_nack(seq => $pdu->{seq}, status => ESME_RINVCMDID) });
    }
    emit({ %entry, %$seen });
    $respond->();
}

while (1) {
    exit 0 if getppid() != $parent;
    my $now = time;
    my @due = grep { $_->{due} <= $now } @receipts;
    @receipts = grep { $_->{due} > $now } @receipts;
    for my $r (@due) {
        next if send_receipt($r);
        # No receiving bind now: kept, as an SMSC stores receipts until the account binds again.
        $r->{due} = $now + 0.1;
        push @receipts, $r;
    }
    my $wait = 0.25;
    for my $r (@receipts) { $wait = $r->{due} - $now if $r->{due} - $now < $wait }
    for my $fh ($select->can_read($wait < 0 ? 0 : $wait)) {
        next unless defined fileno $fh;    # closed by an earlier handle of this round (drop)
        if ($fh == $listener) {
            my $sock = $listener->accept or next;
            my $c = { id => $next_connection++, sock => $sock, mode => undef, system_id => '' };
            $connections{ fileno $sock } = $c;
            $select->add($sock);
            emit({ event => 'connected', conn => $c->{id} });
        } elsif (fileno($fh) == fileno(STDIN)) {
            my $read = sysread(STDIN, $stdin_buffer, 65536, length $stdin_buffer);
            exit 0 unless $read;
            control($1) while $stdin_buffer =~ s/^([^\n]*)\n//;
        } elsif (my $c = $connections{ fileno $fh }) {
            receive($c);
        }
    }
}
